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
 * The cluster mailbox's keys and values (membox.h): pure functions, so
 * that both ends read each other's text the same way and the fuzzer
 * reaches all of it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membox.h"
#include "names.h"

static const struct {
	int		 verb;
	const char	*word;
} verbs[] = {
	{ MEMBOX_LOG,		"log" },
	{ MEMBOX_SUGGEST,	"suggest" },
	{ MEMBOX_REFRESH,	"refresh" },
};

/* a member's name as the mailbox's keys carry it */
static int
member_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == n && s[0] != '-';
}

int
membox_id(char *buf, size_t len, const char *asker, int64_t t, uint32_t seq)
{
	int	n;

	if (!member_ok(asker) || t < 0)
		return -1;
	n = snprintf(buf, len, "%s.%" PRId64 ".%" PRIu32, asker, t, seq);
	return n < 0 || (size_t)n >= len ||
	    strlen(MEMBOX_ANSWER) + (size_t)n >= MEMBOX_KEY_MAX ? -1 : 0;
}

/* digits only, at most 18 of them */
static int
num_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > 18)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int
membox_id_parse(const char *id, char *asker, size_t alen, int64_t *t)
{
	const char	*d1, *d2;
	size_t		 n;

	if ((d1 = strchr(id, '.')) == NULL ||
	    (d2 = strchr(d1 + 1, '.')) == NULL)
		return -1;
	n = (size_t)(d1 - id);
	if (n == 0 || n >= alen || !num_ok(d1 + 1, (size_t)(d2 - d1 - 1)) ||
	    !num_ok(d2 + 1, strlen(d2 + 1)) || strlen(d2 + 1) > 10)
		return -1;
	memcpy(asker, id, n);
	asker[n] = '\0';
	if (!member_ok(asker))
		return -1;
	*t = strtoll(d1 + 1, NULL, 10);
	return 0;
}

/* what net log --since takes, as typed: digits and unit letters */
static int
since_ok(const char *s)
{
	size_t	n = strlen(s);

	return n < MEMBOX_SINCE_MAX && strspn(s, "0123456789smhdw") == n;
}

int
membox_ask_format(char *buf, size_t len, int verb, const char *name,
    const char *since)
{
	size_t	i;
	int	n;

	if (!name_instance_ok(name) || !since_ok(since))
		return -1;
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].verb == verb)
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0]))
		return -1;
	n = snprintf(buf, len, "%s %s%s%s", verbs[i].word, name,
	    since[0] != '\0' ? " " : "", since);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
membox_ask_parse(const char *v, int *verb, char *name, size_t nlen,
    char *since, size_t slen)
{
	const char	*sp, *sp2;
	size_t		 i, n;

	if ((sp = strchr(v, ' ')) == NULL)
		return -1;
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strlen(verbs[i].word) == (size_t)(sp - v) &&
		    strncmp(v, verbs[i].word, (size_t)(sp - v)) == 0)
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0]))
		return -1;
	sp++;
	if ((sp2 = strchr(sp, ' ')) == NULL)
		sp2 = sp + strlen(sp);
	n = (size_t)(sp2 - sp);
	if (n == 0 || n >= nlen || (*sp2 == ' ' && (sp2[1] == '\0' ||
	    strlen(sp2 + 1) >= slen || !since_ok(sp2 + 1))))
		return -1;
	memcpy(name, sp, n);
	name[n] = '\0';
	if (!name_instance_ok(name))
		return -1;
	if (*sp2 == ' ')
		(void)strlcpy(since, sp2 + 1, slen);
	else
		since[0] = '\0';
	*verb = verbs[i].verb;
	return 0;
}

/* s (n bytes) onto d at *dl, escaped; d holds at least 3 * n more */
static void
enc(char *d, size_t *dl, const char *s, size_t n)
{
	static const char	hex[] = "0123456789ABCDEF";
	unsigned char		c;
	size_t			i;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c < 0x20 || c > 0x7e || c == '%') {
			d[(*dl)++] = '%';
			d[(*dl)++] = hex[c >> 4];
			d[(*dl)++] = hex[c & 15];
		} else
			d[(*dl)++] = (char)c;
	}
}

static void
enc_str(char *d, size_t *dl, const char *s, size_t max)
{
	d[(*dl)++] = '\t';
	enc(d, dl, s, strnlen(s, max));
}

static void
enc_num(char *d, size_t *dl, int64_t v)
{
	char	n[24];

	(void)snprintf(n, sizeof(n), "%" PRId64, v);
	enc_str(d, dl, n, sizeof(n));
}

int
membox_put(struct membox_out *o, uint32_t type, const void *data,
    size_t len, size_t reserve)
{
	const struct jb_ctl_text	*t = data;
	const struct jb_net_block	*b = data;
	const struct jb_net_resolved	*r = data;
	const struct jb_output		*out = data;
	char				*rec;
	size_t				 rl = 0, need;

	switch (type) {
	case IMSG_CTL_PROGRESS:
	case IMSG_CTL_ERROR:
		if (len != sizeof(*t))
			return -1;
		need = 3 * sizeof(t->text) + 4;
		break;
	case IMSG_CTL_NET_BLOCK:
		if (len != sizeof(*b))
			return -1;
		need = 3 * sizeof(*b) + 128;
		break;
	case IMSG_CTL_NET_RESOLVED:
		if (len != sizeof(*r))
			return -1;
		need = 3 * sizeof(*r) + 64;
		break;
	case IMSG_CTL_OUTPUT:
		if (len != sizeof(*out) || out->len > sizeof(out->data))
			return -1;
		need = 3 * out->len + 32;
		break;
	case IMSG_CTL_END:
		need = 4;
		break;
	default:
		return -1;
	}
	if ((rec = malloc(need)) == NULL)
		return -1;
	switch (type) {
	case IMSG_CTL_PROGRESS:
	case IMSG_CTL_ERROR:
		rec[rl++] = type == IMSG_CTL_PROGRESS ? 'p' : 'e';
		enc_str(rec, &rl, t->text, sizeof(t->text));
		break;
	case IMSG_CTL_NET_BLOCK:
		rec[rl++] = 'b';
		enc_str(rec, &rl, b->name, sizeof(b->name));
		enc_str(rec, &rl, b->kind, sizeof(b->kind));
		enc_str(rec, &rl, b->what, sizeof(b->what));
		enc_num(rec, &rl, b->count > INT64_MAX ? INT64_MAX :
		    (int64_t)b->count);
		enc_num(rec, &rl, b->first);
		enc_num(rec, &rl, b->last);
		enc_str(rec, &rl, b->allow, sizeof(b->allow));
		break;
	case IMSG_CTL_NET_RESOLVED:
		rec[rl++] = 'r';
		enc_str(rec, &rl, r->name, sizeof(r->name));
		enc_str(rec, &rl, r->host, sizeof(r->host));
		enc_num(rec, &rl, r->answered != 0);
		enc_num(rec, &rl, r->pooled);
		break;
	case IMSG_CTL_OUTPUT:
		rec[rl++] = 'o';
		enc_num(rec, &rl, out->which == 2 ? 2 : 1);
		rec[rl++] = '\t';
		enc(rec, &rl, out->data, out->len);
		break;
	case IMSG_CTL_END:
		rec[rl++] = 'z';
		break;
	}
	rec[rl++] = '\n';
	if (o->len + rl + reserve >= sizeof(o->buf)) {
		free(rec);
		o->dropped++;
		return -1;
	}
	memcpy(o->buf + o->len, rec, rl);
	o->len += rl;
	o->buf[o->len] = '\0';
	free(rec);
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The field of line (n bytes) at *i, up to a tab or the end, decoded
 * into d (max bytes, NUL included unless raw); its length in *dl.
 */
static int
dec(const char *line, size_t n, size_t *i, char *d, size_t max, size_t *dl,
    int raw)
{
	int	hi, lo;

	*dl = 0;
	if (*i >= n || line[*i] != '\t')
		return -1;
	for ((*i)++; *i < n && line[*i] != '\t'; (*i)++) {
		if (*dl >= max - (raw ? 0 : 1))
			return -1;
		if (line[*i] == '%') {
			if (*i + 2 >= n || (hi = hexval(line[*i + 1])) ==
			    -1 || (lo = hexval(line[*i + 2])) == -1)
				return -1;
			d[(*dl)++] = (char)(hi << 4 | lo);
			*i += 2;
		} else if ((unsigned char)line[*i] < 0x20 ||
		    (unsigned char)line[*i] > 0x7e)
			return -1;
		else
			d[(*dl)++] = line[*i];
	}
	if (!raw) {
		if (memchr(d, '\0', *dl) != NULL)
			return -1;
		d[*dl] = '\0';
	}
	return 0;
}

static int
dec_num(const char *line, size_t n, size_t *i, int64_t *v, int64_t min)
{
	char	s[24], *end;
	size_t	sl;

	if (dec(line, n, i, s, sizeof(s), &sl, 0) == -1 || sl == 0 ||
	    strspn(s + (s[0] == '-'), "0123456789") != sl - (s[0] == '-') ||
	    sl - (s[0] == '-') == 0)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno != 0 || *end != '\0' || *v < min ? -1 : 0;
}

int
membox_next(const char *answer, size_t *pos, struct membox_rec *rec)
{
	const char	*line = answer + *pos, *nl;
	size_t		 n, i = 1, sl;
	int64_t		 v1, v2, v3;

	if (*line == '\0')
		return 0;
	if ((nl = strchr(line, '\n')) == NULL)
		return -1;
	n = (size_t)(nl - line);
	memset(rec, 0, sizeof(*rec));
	switch (line[0]) {
	case 'p':
	case 'e':
		rec->type = line[0] == 'p' ? IMSG_CTL_PROGRESS : IMSG_CTL_ERROR;
		if (dec(line, n, &i, rec->u.text.text,
		    sizeof(rec->u.text.text), &sl, 0) == -1)
			return -1;
		break;
	case 'b':
		rec->type = IMSG_CTL_NET_BLOCK;
		if (dec(line, n, &i, rec->u.block.name,
		    sizeof(rec->u.block.name), &sl, 0) == -1 ||
		    !name_instance_ok(rec->u.block.name) ||
		    dec(line, n, &i, rec->u.block.kind,
		    sizeof(rec->u.block.kind), &sl, 0) == -1 ||
		    dec(line, n, &i, rec->u.block.what,
		    sizeof(rec->u.block.what), &sl, 0) == -1 ||
		    dec_num(line, n, &i, &v1, 0) == -1 ||
		    dec_num(line, n, &i, &v2, 0) == -1 ||
		    dec_num(line, n, &i, &v3, 0) == -1 ||
		    dec(line, n, &i, rec->u.block.allow,
		    sizeof(rec->u.block.allow), &sl, 0) == -1)
			return -1;
		rec->u.block.count = (uint64_t)v1;
		rec->u.block.first = v2;
		rec->u.block.last = v3;
		break;
	case 'r':
		rec->type = IMSG_CTL_NET_RESOLVED;
		if (dec(line, n, &i, rec->u.resolved.name,
		    sizeof(rec->u.resolved.name), &sl, 0) == -1 ||
		    !name_instance_ok(rec->u.resolved.name) ||
		    dec(line, n, &i, rec->u.resolved.host,
		    sizeof(rec->u.resolved.host), &sl, 0) == -1 ||
		    dec_num(line, n, &i, &v1, 0) == -1 || v1 > 1 ||
		    dec_num(line, n, &i, &v2, 0) == -1 || v2 > UINT32_MAX)
			return -1;
		rec->u.resolved.answered = (int32_t)v1;
		rec->u.resolved.pooled = (uint32_t)v2;
		break;
	case 'o':
		rec->type = IMSG_CTL_OUTPUT;
		if (dec_num(line, n, &i, &v1, 1) == -1 || v1 > 2 ||
		    dec(line, n, &i, rec->u.output.data,
		    sizeof(rec->u.output.data), &sl, 1) == -1)
			return -1;
		rec->u.output.which = (uint32_t)v1;
		rec->u.output.len = (uint32_t)sl;
		break;
	case 'z':
		rec->type = IMSG_CTL_END;
		break;
	default:
		return -1;
	}
	if (i != n)
		return -1;
	*pos += n + 1;
	return 1;
}
