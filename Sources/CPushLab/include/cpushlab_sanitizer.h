// ThreadSanitizer annotations for locks TSan cannot see (Sources/PushHTTP/Shared/SanitizerVisibleMutex.swift).
#ifndef CPUSHLAB_SANITIZER_H
#define CPUSHLAB_SANITIZER_H

/// Tells ThreadSanitizer that the calling thread now holds the lock identified by `token`
/// (everything released under that token happens-before what follows). No-op without TSan.
void cpl_tsan_acquire(void *token);

/// Tells ThreadSanitizer the calling thread is about to let go of the lock `token`.
void cpl_tsan_release(void *token);

#endif
