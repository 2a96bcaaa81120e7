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
 * The kept list of instances (instcache.h).  Each name to read again
 * carries the number of the moment it was named; a whole list asked
 * after that moment already holds what it names, so the list clears
 * it when it lands.  Read twice when named again while being read.
 * Each instance is kept as its JSON text, a fifth of what json-c's
 * objects for it take (5.5 kB against 29.8 kB for one of the suite's
 * containers, measured), and parsed again when the list is given out.
 */

#include <stdlib.h>
#include <string.h>

#include "instcache.h"
#include "log.h"

#define DIRTY_MAX	4096	/* names waiting: more, and the list goes */

struct dirty {
	char		*name;
	uint64_t	 seq;		/* when it was named */
	int		 reading;
	int		 again;		/* named again while being read */
};

struct inst {
	char	*name;
	char	*json;
};

struct instcache {
	int			 open;		/* the event stream */
	uint64_t		 epoch;		/* bumped when trust is lost */
	uint64_t		 seq;		/* moments names were given */
	int			 kept;		/* a list is kept: v[0..n) */
	struct inst		*v;
	size_t			 n;
	/* whole lists on their way: the moment each was asked */
	uint64_t		*asked;
	size_t			 nasked;
	struct dirty		*d;
	size_t			 nd;
};

static int	inst_set(struct instcache *, size_t, struct json_object *);

struct instcache *
instcache_new(void)
{
	struct instcache	*ic;

	if ((ic = calloc(1, sizeof(*ic))) == NULL)
		fatal("%s", __func__);
	return ic;
}

static void
dirty_del(struct instcache *ic, size_t i)
{
	free(ic->d[i].name);
	ic->d[i] = ic->d[--ic->nd];
}

static void
insts_free(struct instcache *ic)
{
	size_t	i;

	for (i = 0; i < ic->n; i++) {
		free(ic->v[i].name);
		free(ic->v[i].json);
	}
	free(ic->v);
	ic->v = NULL;
	ic->n = 0;
	ic->kept = 0;
}

void
instcache_drop(struct instcache *ic)
{
	insts_free(ic);
	ic->epoch++;
	/* no list kept and none on its way: nothing to read again */
	if (ic->nasked == 0)
		while (ic->nd > 0)
			dirty_del(ic, 0);
}

void
instcache_free(struct instcache *ic)
{
	if (ic == NULL)
		return;
	ic->nasked = 0;
	instcache_drop(ic);
	free(ic->asked);
	free(ic->d);
	free(ic);
}

void
instcache_open(struct instcache *ic)
{
	instcache_drop(ic);
	ic->open = 1;
}

void
instcache_lost(struct instcache *ic)
{
	ic->open = 0;
	instcache_drop(ic);
}

/* the token: the epoch in the high half, the moment in the low one */
uint64_t
instcache_asking(struct instcache *ic)
{
	uint64_t	*v;

	if (!ic->open)
		return 0;
	if ((v = reallocarray(ic->asked, ic->nasked + 1, sizeof(*v))) ==
	    NULL)
		fatal("%s", __func__);
	ic->asked = v;
	ic->asked[ic->nasked++] = ++ic->seq;
	return (ic->epoch << 32) | (ic->seq & 0xffffffffULL);
}

void
instcache_fill(struct instcache *ic, uint64_t token, struct json_object *list)
{
	uint64_t	seq = token & 0xffffffffULL;
	size_t		i;

	if (token == 0)
		return;
	for (i = 0; i < ic->nasked; i++)
		if ((ic->asked[i] & 0xffffffffULL) == seq) {
			ic->asked[i] = ic->asked[--ic->nasked];
			break;
		}
	if (list == NULL || !ic->open || (token >> 32) != ic->epoch ||
	    !json_object_is_type(list, json_type_array)) {
		if (!ic->kept && ic->nasked == 0)
			instcache_drop(ic);
		return;
	}
	insts_free(ic);
	for (i = 0; i < json_object_array_length(list); i++)
		if (inst_set(ic, ic->n, json_object_array_get_idx(list, i)) ==
		    -1) {
			log_warnx("Incus listed an instance with no name: "
			    "the list is not kept");
			instcache_drop(ic);
			return;
		}
	ic->kept = 1;
	/* what was named before it was asked, it holds */
	for (i = 0; i < ic->nd; )
		if (ic->d[i].seq < seq && !ic->d[i].reading)
			dirty_del(ic, i);
		else
			i++;
}

void
instcache_dirty(struct instcache *ic, const char *name)
{
	struct dirty	*v;
	size_t		 i;

	if (!ic->kept && ic->nasked == 0)
		return;
	++ic->seq;
	for (i = 0; i < ic->nd; i++)
		if (strcmp(ic->d[i].name, name) == 0) {
			ic->d[i].seq = ic->seq;
			if (ic->d[i].reading)
				ic->d[i].again = 1;
			return;
		}
	if (ic->nd == DIRTY_MAX) {
		instcache_drop(ic);
		return;
	}
	if ((v = reallocarray(ic->d, ic->nd + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	ic->d = v;
	memset(&v[ic->nd], 0, sizeof(v[0]));
	if ((v[ic->nd].name = strdup(name)) == NULL)
		fatal("%s", __func__);
	v[ic->nd++].seq = ic->seq;
}

const char *
instcache_to_read(struct instcache *ic)
{
	size_t	i;

	if (!ic->kept)
		return NULL;
	for (i = 0; i < ic->nd; i++)
		if (!ic->d[i].reading) {
			ic->d[i].reading = 1;
			return ic->d[i].name;
		}
	return NULL;
}

static const char *
inst_name(struct json_object *inst)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(inst, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * instance inst as v[i]; i == n: a new one, where Incus lists it (by
 * name), or at the end while a whole list is read in its own order
 */
static int
inst_set(struct instcache *ic, size_t i, struct json_object *inst)
{
	struct inst	*v;
	const char	*name, *text;
	char		*n, *j;

	if ((name = inst_name(inst)) == NULL || (text =
	    json_object_to_json_string_ext(inst, JSON_C_TO_STRING_PLAIN)) ==
	    NULL)
		return -1;
	if ((n = strdup(name)) == NULL || (j = strdup(text)) == NULL)
		fatal("%s", __func__);
	if (i == ic->n) {
		if ((v = reallocarray(ic->v, ic->n + 1, sizeof(*v))) == NULL)
			fatal("%s", __func__);
		ic->v = v;
		if (ic->kept)
			for (i = 0; i < ic->n; i++)
				if (strcmp(v[i].name, name) > 0)
					break;
		memmove(&v[i + 1], &v[i], (ic->n - i) * sizeof(*v));
		ic->n++;
	} else {
		free(ic->v[i].name);
		free(ic->v[i].json);
	}
	ic->v[i].name = n;
	ic->v[i].json = j;
	return 0;
}

/* what a read of instance name gave, into the kept list */
static void
apply(struct instcache *ic, const char *name, struct json_object *inst)
{
	const char	*n;
	size_t		 i;

	if (!ic->kept)
		return;
	if (inst != NULL && ((n = inst_name(inst)) == NULL ||
	    strcmp(n, name) != 0)) {
		log_warnx("Incus answered GET of instance %s with another "
		    "name: the kept list is dropped", name);
		instcache_drop(ic);
		return;
	}
	for (i = 0; i < ic->n; i++)
		if (strcmp(ic->v[i].name, name) == 0)
			break;
	if (inst == NULL) {
		if (i < ic->n) {
			free(ic->v[i].name);
			free(ic->v[i].json);
			memmove(&ic->v[i], &ic->v[i + 1], (ic->n - i - 1) *
			    sizeof(ic->v[0]));
			ic->n--;
		}
	} else if (inst_set(ic, i, inst) == -1)
		instcache_drop(ic);
}

/* name may be the one instcache_to_read() gave: it is freed here */
void
instcache_read(struct instcache *ic, const char *name,
    struct json_object *inst)
{
	char	*dn;
	size_t	 i;

	for (i = 0; i < ic->nd; i++)
		if (strcmp(ic->d[i].name, name) == 0)
			break;
	if (i == ic->nd || !ic->d[i].reading)
		return;
	if (ic->d[i].again) {
		ic->d[i].reading = ic->d[i].again = 0;
		return;
	}
	dn = ic->d[i].name;
	ic->d[i] = ic->d[--ic->nd];
	apply(ic, dn, inst);
	free(dn);
}

void
instcache_unread(struct instcache *ic, const char *name)
{
	size_t	i;

	for (i = 0; i < ic->nd; i++)
		if (strcmp(ic->d[i].name, name) == 0) {
			ic->d[i].reading = ic->d[i].again = 0;
			return;
		}
}

int
instcache_waiting(const struct instcache *ic)
{
	return ic->kept && ic->nd > 0;
}

struct json_object *
instcache_list(const struct instcache *ic)
{
	struct json_object	*out, *o;
	size_t			 i;

	if (!ic->kept || ic->nd > 0)
		return NULL;
	if ((out = json_object_new_array()) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < ic->n; i++) {
		if ((o = json_tokener_parse(ic->v[i].json)) == NULL) {
			/* its own text: cannot be, but then no list */
			json_object_put(out);
			return NULL;
		}
		json_object_array_add(out, o);
	}
	return out;
}
