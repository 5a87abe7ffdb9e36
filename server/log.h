/* log.h - one-line log messages on stderr, with time and level. */
#ifndef PRIVD_LOG_H
#define PRIVD_LOG_H

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_debug(int on);

#endif
