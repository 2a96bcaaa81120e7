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
 * The listing looks like
 *	{"nftables": [{"metainfo": {...}}, {"set": {"name": "refused0",
 *	  ..., "elem": [{"elem": {"val": {"concat": ["10.0.0.2",
 *	  "198.18.0.5", 6, 8080]}, "expires": 3598, "counter":
 *	  {"packets": 2, "bytes": 120}}}, ...]}}]}
 * and an empty set has no "elem" at all.  jb-netd asks for numeric
 * protocols (its lock-down leaves no /etc/protocols either); the names
 * "tcp" and "udp" are taken too, as nft prints them otherwise.
 */

#include <netinet/in.h>
#include <arpa/inet.h>
#include <json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "refused.h"

#define JSON_DEPTH	16

/* a dotted quad exactly as nft prints it */
static int
addr(struct json_object *o, uint32_t *a)
{
	struct in_addr	in;
	const char	*s;

	if (!json_object_is_type(o, json_type_string))
		return -1;
	s = json_object_get_string(o);
	if ((size_t)json_object_get_string_len(o) != strlen(s) ||
	    inet_pton(AF_INET, s, &in) != 1)
		return -1;
	*a = ntohl(in.s_addr);
	return 0;
}

static int
integer(struct json_object *o, int64_t lo, int64_t hi, int64_t *v)
{
	if (o == NULL || !json_object_is_type(o, json_type_int))
		return -1;
	*v = json_object_get_int64(o);
	return *v < lo || *v > hi ? -1 : 0;
}

static int
elem(struct json_object *w, struct refused_elem *e)
{
	struct json_object	*x, *val, *cat, *ctr;
	const char		*p;
	int64_t			 v;

	memset(e, 0, sizeof(*e));
	e->expires = -1;
	if (!json_object_object_get_ex(w, "elem", &x) ||
	    !json_object_is_type(x, json_type_object) ||
	    !json_object_object_get_ex(x, "val", &val) ||
	    !json_object_object_get_ex(val, "concat", &cat) ||
	    !json_object_is_type(cat, json_type_array) ||
	    json_object_array_length(cat) != 4)
		return -1;
	if (addr(json_object_array_get_idx(cat, 0), &e->src) == -1 ||
	    addr(json_object_array_get_idx(cat, 1), &e->dst) == -1)
		return -1;
	/* a number (numeric output, or no /etc/protocols) or its name */
	x = json_object_array_get_idx(cat, 2);
	if (json_object_is_type(x, json_type_int)) {
		v = json_object_get_int64(x);
		p = v == IPPROTO_TCP ? "tcp" : v == IPPROTO_UDP ? "udp" : "";
	} else if (json_object_is_type(x, json_type_string))
		p = json_object_get_string(x);
	else
		return -1;
	if (strcmp(p, "tcp") == 0)
		e->proto = EGRESS_PROTO_TCP;
	else if (strcmp(p, "udp") == 0)
		e->proto = EGRESS_PROTO_UDP;
	else
		return -1;
	if (integer(json_object_array_get_idx(cat, 3), 0, 65535, &v) == -1)
		return -1;
	e->port = (uint16_t)v;
	json_object_object_get_ex(w, "elem", &x);
	if (!json_object_object_get_ex(x, "counter", &ctr) ||
	    !json_object_object_get_ex(ctr, "packets", &val) ||
	    integer(val, 0, INT64_MAX, &v) == -1)
		return -1;
	e->packets = (uint64_t)v;
	if (json_object_object_get_ex(x, "expires", &val)) {
		if (integer(val, 0, INT64_MAX, &v) == -1)
			return -1;
		e->expires = v;
	}
	return 0;
}

static int
parse(struct json_object *root, size_t max, struct refused_elem **out,
    size_t *np, char *err, size_t errlen)
{
	struct json_object	*arr, *item, *set, *elems;
	struct refused_elem	*v = NULL;
	size_t			 i, j, n, nsets = 0;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "nftables", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return errtext(err, errlen, "refused flows: not an nftables "
		    "listing");
	for (i = 0; i < json_object_array_length(arr); i++) {
		item = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(item, json_type_object) ||
		    !json_object_object_get_ex(item, "set", &set))
			continue;
		if (nsets++ > 0 || !json_object_is_type(set, json_type_object))
			return errtext(err, errlen,
			    "refused flows: the listing "
			    "is not of one set");
		if (!json_object_object_get_ex(set, "elem", &elems))
			continue;
		if (!json_object_is_type(elems, json_type_array))
			return errtext(err, errlen, "refused flows: elements "
			    "are not a list");
		n = json_object_array_length(elems);
		if (n > max)
			return errtext(err, errlen, "refused flows: %zu "
			    "elements, more than the %zu a set holds", n, max);
		if (n == 0)
			continue;
		if ((v = calloc(n, sizeof(*v))) == NULL)
			return errtext(err, errlen, "out of memory");
		for (j = 0; j < n; j++)
			if (elem(json_object_array_get_idx(elems, j), &v[j])
			    == -1) {
				free(v);
				return errtext(err, errlen, "refused flows: "
				    "element %zu is not source . destination "
				    ". tcp|udp . port with a counter", j);
			}
		*out = v;
		*np = n;
	}
	if (nsets == 0)
		return errtext(err, errlen, "refused flows: no set in the "
		    "listing");
	return 0;
}

/* one JSON value from text alone, all of it, or NULL */
static struct json_object *
tokenize(const char *text, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*o;

	if (len > INT32_MAX || (tok = json_tokener_new_ex(JSON_DEPTH)) == NULL)
		return NULL;
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) < len) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* past the string whose opening quote is at t[i], or len */
static size_t
skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return len;
}

static size_t
skip_space(const char *t, size_t len, size_t i)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' ||
	    t[i] == '\r'))
		i++;
	return i;
}

/*
 * Past the value starting at t[i]: a string, an object or list with its
 * brackets matched (strings skipped), or a bare word up to the next
 * comma, bracket or space.  Whether it is JSON is json-c's to say.
 */
static size_t
skip_value(const char *t, size_t len, size_t i)
{
	size_t	depth = 0;

	if (i < len && t[i] == '"')
		return skip_string(t, len, i);
	if (i < len && t[i] != '{' && t[i] != '[') {
		while (i < len && strchr(",]} \t\r\n", t[i]) == NULL)
			i++;
		return i;
	}
	while (i < len) {
		if (t[i] == '"') {
			i = skip_string(t, len, i);
			continue;
		}
		if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
		i++;
	}
	return len;
}

/*
 * The set's list of elements: where its '[' is (*a) and one past its
 * ']' (*b), found as the value of the key "elem" in the object under the
 * key "set" of an item of the listing (the fourth level of brackets).
 * 0 when there is no such list (an empty set has no "elem"; a set whose
 * "elem" is no list is the whole parse's to refuse).
 */
static int
elem_span(const char *t, size_t len, size_t *a, size_t *b)
{
	size_t	i = 0, s, e, depth = 0;
	int	inset = 0, setkey = 0;

	while (i < len) {
		if (t[i] == '"') {
			s = i;
			e = skip_string(t, len, i);
			i = skip_space(t, len, e);
			if (i >= len || t[i] != ':')
				continue;
			i = skip_space(t, len, i + 1);
			if (depth == 3)
				setkey = e - s == 5 && memcmp(t + s, "\"set\"", 5)
				    == 0;
			if (depth == 4 && inset && e - s == 6 &&
			    memcmp(t + s, "\"elem\"", 6) == 0 && i < len &&
			    t[i] == '[') {
				*a = i;
				*b = skip_value(t, len, i);
				return 1;
			}
			continue;
		}
		if (t[i] == '{' || t[i] == '[') {
			if (depth == 3)
				inset = t[i] == '{' && setkey;
			depth++;
		} else if (t[i] == '}' || t[i] == ']') {
			if (depth > 0)
				depth--;
			if (depth <= 3)
				inset = 0;
		}
		i++;
	}
	return 0;
}

/*
 * The elements between t[a] = '[' and t[b - 1] = ']', each made into
 * JSON objects of its own and dropped once read, so that reading a full
 * set takes the memory of one element, not of thousands at once.
 */
static int
parse_elems(const char *t, size_t a, size_t b, size_t max,
    struct refused_elem **out, size_t *np, char *err, size_t errlen)
{
	struct refused_elem	*v;
	struct json_object	*o;
	size_t			 i, e, n = 0, k;
	int			 pass, bad;

	if (b - a < 2 || t[b - 1] != ']')
		return errtext(err, errlen, "refused flows: the listing is not "
		    "JSON");
	/* pass 0 counts, pass 1 reads */
	v = NULL;
	for (pass = 0; pass < 2; pass++) {
		k = 0;
		i = skip_space(t, b - 1, a + 1);
		while (i < b - 1) {
			e = skip_value(t, b - 1, i);
			if (pass == 1) {
				if ((o = tokenize(t + i, e - i)) == NULL) {
					free(v);
					return errtext(err, errlen, "refused "
					    "flows: the listing is not JSON");
				}
				bad = elem(o, &v[k]) == -1;
				json_object_put(o);
				if (bad) {
					free(v);
					return errtext(err, errlen, "refused "
					    "flows: element %zu is not source "
					    ". destination . tcp|udp . port "
					    "with a counter", k);
				}
			}
			k++;
			i = skip_space(t, b - 1, e);
			if (i < b - 1) {
				if (t[i] != ',') {
					free(v);
					return errtext(err, errlen, "refused "
					    "flows: the listing is not JSON");
				}
				i = skip_space(t, b - 1, i + 1);
				/* a comma needs a value after it */
				if (i >= b - 1) {
					free(v);
					return errtext(err, errlen, "refused "
					    "flows: the listing is not JSON");
				}
			}
		}
		if (pass == 0) {
			n = k;
			if (n > max)
				return errtext(err, errlen,
				    "refused flows: %zu "
				    "elements, more than the %zu a set holds",
				    n, max);
			if (n == 0)
				break;
			if ((v = calloc(n, sizeof(*v))) == NULL)
				return errtext(err, errlen, "out of memory");
		}
	}
	*out = v;
	*np = n;
	return 0;
}

int
refused_parse(const char *text, size_t len, size_t max,
    struct refused_elem **out, size_t *np, char *err, size_t errlen)
{
	struct json_object	*root;
	struct refused_elem	*v = NULL;
	char			*rest = NULL;
	size_t			 a, b, n = 0;
	int			 rc;

	*out = NULL;
	*np = 0;
	if (len > INT32_MAX)
		return errtext(err, errlen, "refused flows: listing too long");
	/*
	 * The elements one by one; the rest, with an empty list in their
	 * place, as one JSON text checked as before.
	 */
	if (elem_span(text, len, &a, &b)) {
		if (parse_elems(text, a, b, max, &v, &n, err, errlen) == -1)
			return -1;
		if ((rest = malloc(len - (b - a) + 3)) == NULL) {
			free(v);
			return errtext(err, errlen, "out of memory");
		}
		memcpy(rest, text, a);
		memcpy(rest + a, "[]", 2);
		memcpy(rest + a + 2, text + b, len - b);
		len = len - (b - a) + 2;
		rest[len] = '\0';
		text = rest;
	}
	root = tokenize(text, len);
	free(rest);
	if (root == NULL) {
		free(v);
		return errtext(err, errlen, "refused flows: the listing is not "
		    "JSON");
	}
	rc = parse(root, max, out, np, err, errlen);
	json_object_put(root);
	if (rc == -1) {
		free(*out);
		free(v);
		*out = NULL;
		*np = 0;
		return -1;
	}
	if (v != NULL) {
		free(*out);
		*out = v;
		*np = n;
	}
	return 0;
}

char *
refused_what(const struct refused_elem *e, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%u.%u.%u.%u:%u/%s", e->dst >> 24,
	    e->dst >> 16 & 0xff, e->dst >> 8 & 0xff, e->dst & 0xff,
	    (unsigned)e->port, e->proto == EGRESS_PROTO_UDP ? "udp" : "tcp");
	return buf;
}

int
refused_unwhat(const char *text, struct refused_elem *e)
{
	struct refused_elem	 r;
	char			 back[REFUSED_WHAT_MAX];
	unsigned int		 a, b, c, d, port;
	char			 proto[4];

	if (sscanf(text, "%3u.%3u.%3u.%3u:%5u/%3s", &a, &b, &c, &d, &port,
	    proto) != 6 || a > 255 || b > 255 || c > 255 || d > 255 ||
	    port > 65535)
		return -1;
	memset(&r, 0, sizeof(r));
	r.dst = a << 24 | b << 16 | c << 8 | d;
	r.port = (uint16_t)port;
	if (strcmp(proto, "tcp") == 0)
		r.proto = EGRESS_PROTO_TCP;
	else if (strcmp(proto, "udp") == 0)
		r.proto = EGRESS_PROTO_UDP;
	else
		return -1;
	/* only the exact text refused_what makes */
	if (strcmp(refused_what(&r, back, sizeof(back)), text) != 0)
		return -1;
	e->dst = r.dst;
	e->port = r.port;
	e->proto = r.proto;
	return 0;
}

char *
refused_allow(const struct refused_elem *e, const char *name, char *buf,
    size_t len)
{
	struct egress_entry	 x;
	char			 text[EGRESS_ENTRY_MAX + 1], why[128];
	char			 a[REFUSED_WHAT_MAX];

	if (len > 0)
		buf[0] = '\0';
	if (e->port == 0)
		return buf;
	if (name != NULL && name[0] != '\0')
		(void)snprintf(text, sizeof(text), "%s:%u/%s", name,
		    (unsigned)e->port,
		    e->proto == EGRESS_PROTO_UDP ? "udp" : "tcp");
	else
		(void)snprintf(text, sizeof(text), "%s",
		    refused_what(e, a, sizeof(a)));
	/* what the config's parser takes back, in its canonical form */
	if (policy_parse_entry(text, &x, why, sizeof(why)) == -1)
		return buf;
	return policy_entry_fmt(&x, buf, len);
}
