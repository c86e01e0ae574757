#include "cpushlab_sqlite.h"

// `text` may be NULL for an empty string (Swift gives no address for zero bytes); SQLite would bind NULL.
int cpl_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) { return sqlite3_bind_text(stmt, index, text ? text : "", length, SQLITE_TRANSIENT); }
int cpl_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *data, int length) { return sqlite3_bind_blob(stmt, index, data, length, SQLITE_TRANSIENT); }
