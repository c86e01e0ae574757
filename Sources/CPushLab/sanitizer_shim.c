#include "cpushlab_sanitizer.h"

// The ThreadSanitizer runtime's annotation entry points. Weak: in a build without TSan they
// stay unresolved (NULL) and the calls below do nothing, so no build flag is needed.
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));

void cpl_tsan_acquire(void *token) { if (__tsan_acquire) __tsan_acquire(token); }
void cpl_tsan_release(void *token) { if (__tsan_release) __tsan_release(token); }
