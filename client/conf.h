/* conf.h - where privctl finds privd and its key: flags, environment, config file. */
#ifndef PRIVCTL_CONF_H
#define PRIVCTL_CONF_H

struct conf {
	char *url;
	char *key;
	char *user;		/* "uid:password" for HTTP Basic */
};

/*
 * Fills what the flags left NULL from PRIVD_URL / PRIVD_KEY, then from
 * ~/.config/privctl/config.yaml (keys url, key); url defaults to
 * http://127.0.0.1:8080. 0, or -1 with a message naming file and line.
 */
int conf_load(struct conf *c);
void conf_free(struct conf *c);

#endif
