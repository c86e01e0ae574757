#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "cpushlab_fs.h"

int cpl_rename_exchange(const char *a, const char *b) { return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE); }
