/* log.h - one line per event on stderr, with time and level; text or JSON. */
#ifndef PRIVD_LOG_H
#define PRIVD_LOG_H

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_debug(int on);
/* log.format: json: each line a JSON object {time, service, level, msg}. */
void log_set_json(int on);

#endif
