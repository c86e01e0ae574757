// SQLite: SQLITE_TRANSIENT is a macro cast Swift cannot import.
#ifndef CPUSHLAB_SQLITE_H
#define CPUSHLAB_SQLITE_H

#include <sqlite3.h>

int cpl_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length);
int cpl_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *data, int length);

#endif
