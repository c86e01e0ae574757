// File system: renameat2() is declared only under _GNU_SOURCE, which Swift's Glibc module
// does not define.
#ifndef CPUSHLAB_FS_H
#define CPUSHLAB_FS_H

/// Atomically swaps the directory entries `a` and `b` (renameat2 RENAME_EXCHANGE).
/// 0 on success, else -1 with errno set (ENOENT when either is missing, EINVAL when the file
/// system cannot exchange).
int cpl_rename_exchange(const char *a, const char *b);

#endif
