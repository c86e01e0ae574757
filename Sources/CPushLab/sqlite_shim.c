#include "cpushlab_sqlite.h"

int cpl_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) { return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT); }
int cpl_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *data, int length) { return sqlite3_bind_blob(stmt, index, data, length, SQLITE_TRANSIENT); }
