/* utf8.h - text that echoes what a client sent, made safe to answer and log. */
#ifndef PRIVD_UTF8_H
#define PRIVD_UTF8_H

/*
 * Makes s valid UTF-8 in place: the start of a character cut short (a
 * message cut at its buffer's size, or a %.64s inside it) is dropped; any
 * other byte that belongs to no well-formed character (overlong forms,
 * surrogates, past U+10FFFF) and every control character become '?'.
 * Valid characters stay.
 */
void utf8_clean(char *s);

#endif
