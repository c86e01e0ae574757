/* What SQLite alone costs per collector request (benchmarks/collector.sh, "SQLite floor"): the
 * two INSERTs MetricStore makes for an accepted one-metric request (a metric_requests row with
 * the raw body, a metrics row), in transactions of BATCH requests, WAL mode, synchronous=NORMAL,
 * as the collector's group commits do, with nothing else in the process: no HTTP, no JSON, no
 * threads. Prints the process's CPU µs (user + system, getrusage) per request.
 * Usage: collector-sqlite-floor DB BODY_FILE REQUESTS BATCH PAGE_SIZE INDEX(0|1) AUTOCHECKPOINT(0|1) */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

static void check(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "collector-sqlite-floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static double cpu_us(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s DB BODY_FILE REQUESTS BATCH PAGE_SIZE INDEX(0|1) AUTOCHECKPOINT(0|1)\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  int requests = atoi(argv[3]), batch = atoi(argv[4]), page = atoi(argv[5]), index = atoi(argv[6]), autockpt = atoi(argv[7]);
  FILE *f = fopen(argv[2], "rb");
  if (!f) { perror(argv[2]); return 2; }
  static char body[1 << 20];
  size_t body_len = fread(body, 1, sizeof body, f);
  fclose(f);
  char wal[4096];
  snprintf(wal, sizeof wal, "%s-wal", path);
  unlink(path); unlink(wal);
  sqlite3 *db;
  check(sqlite3_open(path, &db), db, "open");
  char sql[256];
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;%s", page,
           autockpt ? "" : " PRAGMA wal_autocheckpoint=0;");
  check(sqlite3_exec(db, sql, 0, 0, 0), db, "pragmas");
  check(sqlite3_exec(db,
    "CREATE TABLE metric_requests (id INTEGER PRIMARY KEY, received_at REAL NOT NULL, route TEXT NOT NULL, status INTEGER NOT NULL,"
    " error TEXT, metric_count INTEGER NOT NULL, ignored_events INTEGER NOT NULL, user_agent TEXT, http_version TEXT,"
    " remote_address TEXT, body BLOB NOT NULL);"
    "CREATE TABLE metrics (id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL REFERENCES metric_requests(id),"
    " received_at REAL NOT NULL, route TEXT NOT NULL, delivery_id TEXT NOT NULL, metric TEXT NOT NULL, recipient TEXT,"
    " original_timestamp REAL, original_timestamp_text TEXT, batch_index INTEGER, duplicate INTEGER NOT NULL, user_agent TEXT);",
    0, 0, 0), db, "schema");
  if (index) check(sqlite3_exec(db, "CREATE INDEX metrics_delivery_metric ON metrics(delivery_id, metric);", 0, 0, 0), db, "index");
  sqlite3_stmt *r, *m;
  check(sqlite3_prepare_v2(db, "INSERT INTO metric_requests (received_at, route, status, error, metric_count, ignored_events,"
        " user_agent, http_version, remote_address, body) VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &r, 0), db, "prepare");
  check(sqlite3_prepare_v2(db, "INSERT INTO metrics (request_id, received_at, route, delivery_id, metric, recipient,"
        " original_timestamp, original_timestamp_text, batch_index, duplicate, user_agent) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        -1, &m, 0), db, "prepare");
  const char *ua = "Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 18.1) io.pushlab.demo/2.4.1";
  double start = cpu_us();
  for (int i = 0; i < requests; i += batch) {
    check(sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0), db, "begin");
    for (int j = i; j < i + batch && j < requests; j++) {
      sqlite3_bind_double(r, 1, 1775126768.0 + j);
      sqlite3_bind_text(r, 2, "/v1/track", -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(r, 3, 200);
      sqlite3_bind_null(r, 4);
      sqlite3_bind_int64(r, 5, 1);
      sqlite3_bind_int64(r, 6, 0);
      sqlite3_bind_text(r, 7, ua, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(r, 8, "HTTP/2", -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(r, 9, "127.0.0.1:43210", -1, SQLITE_TRANSIENT);
      sqlite3_bind_blob(r, 10, body, (int)body_len, SQLITE_STATIC);
      check(sqlite3_step(r), db, "insert request");
      sqlite3_reset(r);
      sqlite3_bind_int64(m, 1, sqlite3_last_insert_rowid(db));
      sqlite3_bind_double(m, 2, 1775126768.0 + j);
      sqlite3_bind_text(m, 3, "/v1/track", -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(m, 4, "RPILAgUBcRhIBqSfeiIwdIYJKxTY", -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(m, 5, "delivered", -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(m, 6, "dtok-9f8e7d6c5b4a", -1, SQLITE_TRANSIENT);
      sqlite3_bind_null(m, 7);
      sqlite3_bind_null(m, 8);
      sqlite3_bind_null(m, 9);
      sqlite3_bind_int64(m, 10, 1);
      sqlite3_bind_text(m, 11, ua, -1, SQLITE_TRANSIENT);
      check(sqlite3_step(m), db, "insert metric");
      sqlite3_reset(m);
    }
    check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
  }
  printf("%.2f\n", (cpu_us() - start) / requests);
  sqlite3_finalize(r); sqlite3_finalize(m);
  sqlite3_close(db);
  unlink(path); unlink(wal);
  return 0;
}
