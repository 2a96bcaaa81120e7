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

#include "refused.h"

#define JSON_DEPTH	16

static int __attribute__((format(printf, 3, 4)))
perr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	if (errlen > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

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
		return perr(err, errlen, "refused flows: not an nftables "
		    "listing");
	for (i = 0; i < json_object_array_length(arr); i++) {
		item = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(item, json_type_object) ||
		    !json_object_object_get_ex(item, "set", &set))
			continue;
		if (nsets++ > 0 || !json_object_is_type(set, json_type_object))
			return perr(err, errlen, "refused flows: the listing "
			    "is not of one set");
		if (!json_object_object_get_ex(set, "elem", &elems))
			continue;
		if (!json_object_is_type(elems, json_type_array))
			return perr(err, errlen, "refused flows: elements "
			    "are not a list");
		n = json_object_array_length(elems);
		if (n > max)
			return perr(err, errlen, "refused flows: %zu "
			    "elements, more than the %zu a set holds", n, max);
		if (n == 0)
			continue;
		if ((v = calloc(n, sizeof(*v))) == NULL)
			return perr(err, errlen, "out of memory");
		for (j = 0; j < n; j++)
			if (elem(json_object_array_get_idx(elems, j), &v[j])
			    == -1) {
				free(v);
				return perr(err, errlen, "refused flows: "
				    "element %zu is not source . destination "
				    ". tcp|udp . port with a counter", j);
			}
		*out = v;
		*np = n;
	}
	if (nsets == 0)
		return perr(err, errlen, "refused flows: no set in the "
		    "listing");
	return 0;
}

int
refused_parse(const char *text, size_t len, size_t max,
    struct refused_elem **out, size_t *np, char *err, size_t errlen)
{
	struct json_tokener	*tok;
	struct json_object	*root;
	int			 rc;

	*out = NULL;
	*np = 0;
	if (len > INT32_MAX)
		return perr(err, errlen, "refused flows: listing too long");
	if ((tok = json_tokener_new_ex(JSON_DEPTH)) == NULL)
		return perr(err, errlen, "out of memory");
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success
	    || (size_t)json_tokener_get_parse_end(tok) < len) {
		json_object_put(root);
		json_tokener_free(tok);
		return perr(err, errlen, "refused flows: the listing is not "
		    "JSON");
	}
	json_tokener_free(tok);
	rc = parse(root, max, out, np, err, errlen);
	json_object_put(root);
	/* a set after one that parsed: nothing of the first is kept */
	if (rc == -1) {
		free(*out);
		*out = NULL;
		*np = 0;
	}
	return rc;
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
