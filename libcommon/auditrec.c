/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * The audit journal's record: made into one JSON line, matched against
 * jbctl audit's filters, rendered as text.  Pure: jailbeed writes and
 * reads the files (audit.c).
 */

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "auditrec.h"
#include "termsafe.h"

void
audit_str(struct audit_rec *r, const char *key, const char *val)
{
	if (r->nextra >= AUDIT_EXTRA_MAX || val == NULL)
		return;
	r->extra[r->nextra].key = key;
	r->extra[r->nextra].str = val;
	r->nextra++;
}

void
audit_num(struct audit_rec *r, const char *key, long long num)
{
	if (r->nextra >= AUDIT_EXTRA_MAX)
		return;
	r->extra[r->nextra].key = key;
	r->extra[r->nextra].str = NULL;
	r->extra[r->nextra].num = num;
	r->nextra++;
}

/* a value as it may stand in the journal: cut, then made terminal-safe */
static struct json_object *
safe_string(const char *s)
{
	char	buf[AUDIT_VALUE_MAX + 4];
	size_t	len;

	if (s == NULL)
		s = "";
	len = strlen(s);
	if (len > AUDIT_VALUE_MAX) {
		memcpy(buf, s, AUDIT_VALUE_MAX - 3);
		memcpy(buf + AUDIT_VALUE_MAX - 3, "...", 4);
	} else
		memcpy(buf, s, len + 1);
	/* a sequence cut in half becomes '?' here */
	termsafe(buf);
	return json_object_new_string(buf);
}

int
audit_format(const struct audit_rec *r, char *buf, size_t size)
{
	struct json_object	*o;
	const char		*line;
	struct tm		 tm;
	char			 when[32];
	int			 i, ret = -1;

	if (gmtime_r(&r->when, &tm) == NULL)
		return -1;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if ((o = json_object_new_object()) == NULL)
		return -1;
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "actor", safe_string(r->actor));
	json_object_object_add(o, "container", safe_string(r->container));
	json_object_object_add(o, "repo", safe_string(r->repo));
	json_object_object_add(o, "action", safe_string(r->action));
	json_object_object_add(o, "decision", safe_string(r->decision));
	if (r->reason != NULL)
		json_object_object_add(o, "reason", safe_string(r->reason));
	for (i = 0; i < r->nextra && i < AUDIT_EXTRA_MAX; i++)
		json_object_object_add(o, r->extra[i].key,
		    r->extra[i].str != NULL ? safe_string(r->extra[i].str) :
		    json_object_new_int64(r->extra[i].num));
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (line != NULL && strlen(line) < size) {
		strlcpy(buf, line, size);
		ret = (int)strlen(line);
	}
	json_object_put(o);
	return ret;
}

static const char *
field(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
audit_match(const char *line, const struct audit_filter *f)
{
	struct json_object	*o;
	const char		*v;
	size_t			 n;
	int			 ok = 1;

	if (f->cutoff == NULL && f->container == NULL && f->action == NULL &&
	    f->actor == NULL)
		return 1;
	if ((o = json_tokener_parse(line)) == NULL)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		ok = 0;
	/* the fixed-width stamps compare as text */
	if (ok && f->cutoff != NULL && ((v = field(o, "time")) == NULL ||
	    strcmp(v, f->cutoff) < 0))
		ok = 0;
	if (ok && f->container != NULL && ((v = field(o, "container")) ==
	    NULL || strcmp(v, f->container) != 0))
		ok = 0;
	if (ok && f->actor != NULL && ((v = field(o, "actor")) == NULL ||
	    strcmp(v, f->actor) != 0))
		ok = 0;
	if (ok && f->action != NULL) {
		n = strlen(f->action);
		if ((v = field(o, "action")) == NULL ||
		    strncmp(v, f->action, n) != 0 ||
		    (v[n] != '\0' && v[n] != '.'))
			ok = 0;
	}
	json_object_put(o);
	return ok;
}

int
audit_text(const char *line, char *buf, size_t size)
{
	struct json_object	*o;
	const char		*k[] = { "time", "actor", "action", "container",
				    "decision" };
	const char		*v, *reason;
	size_t			 i, len = 0;
	int			 n;
	char			 tmp[AUDIT_VALUE_MAX + 4], kb[33];

	if (size == 0)
		return -1;
	buf[0] = '\0';
	if ((o = json_tokener_parse(line)) == NULL ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -1;
	}
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		v = field(o, k[i]);
		strlcpy(tmp, v == NULL || *v == '\0' ? "-" : v, sizeof(tmp));
		n = snprintf(buf + len, size - len, "%s%s", i ? " " : "",
		    termsafe(tmp));
		if (n < 0 || (size_t)n >= size - len)
			goto full;
		len += n;
	}
	if ((reason = field(o, "reason")) != NULL) {
		strlcpy(tmp, reason, sizeof(tmp));
		n = snprintf(buf + len, size - len, " (%s)", termsafe(tmp));
		if (n < 0 || (size_t)n >= size - len)
			goto full;
		len += n;
	}
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "time") == 0 || strcmp(key, "actor") == 0 ||
		    strcmp(key, "action") == 0 ||
		    strcmp(key, "container") == 0 ||
		    strcmp(key, "decision") == 0 ||
		    strcmp(key, "reason") == 0 || strcmp(key, "repo") == 0)
			continue;
		strlcpy(kb, key, sizeof(kb));
		strlcpy(tmp, json_object_get_string(val), sizeof(tmp));
		n = snprintf(buf + len, size - len, " %s=%s", termsafe(kb),
		    termsafe(tmp));
		if (n < 0 || (size_t)n >= size - len)
			goto full;
		len += n;
	}
	json_object_put(o);
	return (int)len;
full:
	json_object_put(o);
	return -1;
}
