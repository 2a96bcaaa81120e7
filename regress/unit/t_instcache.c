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
 * The kept list of instances: given out only from a list asked while
 * the stream was open, once every instance named since has been read
 * again; a name given before the list was asked is already in it; a
 * name given again while being read is read twice; a new instance goes
 * where Incus lists it, by name; a lost stream or a drop takes it all
 * away.
 */

#include <string.h>

#include <atf-c.h>
#include <json.h>

#include "instcache.h"

static struct json_object *
inst(const char *name, const char *status)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "status", json_object_new_string(status));
	return o;
}

static struct json_object *
list_of(const char *a, const char *b)
{
	struct json_object	*l = json_object_new_array();

	json_object_array_add(l, inst(a, "Running"));
	if (b != NULL)
		json_object_array_add(l, inst(b, "Running"));
	return l;
}

/* a whole list of a (and b) asked and answered */
static void
filled(struct instcache *ic, const char *a, const char *b)
{
	struct json_object	*l = list_of(a, b);

	instcache_fill(ic, instcache_asking(ic), l);
	json_object_put(l);
}

/* the list given out, as "name:status name:status" */
static void
given(struct instcache *ic, char *buf, size_t len)
{
	struct json_object	*l, *o, *v;
	size_t			 i;

	buf[0] = '\0';
	if ((l = instcache_list(ic)) == NULL) {
		strlcpy(buf, "(none)", len);
		return;
	}
	for (i = 0; i < json_object_array_length(l); i++) {
		o = json_object_array_get_idx(l, i);
		if (i > 0)
			strlcat(buf, " ", len);
		json_object_object_get_ex(o, "name", &v);
		strlcat(buf, json_object_get_string(v), len);
		strlcat(buf, ":", len);
		json_object_object_get_ex(o, "status", &v);
		strlcat(buf, json_object_get_string(v), len);
	}
	json_object_put(l);
}

/* nothing may be given out */
/* the read of name n answered with instance name in status */
static void
read_as(struct instcache *ic, const char *n, const char *name,
    const char *status)
{
	struct json_object	*o;

	instcache_read(ic, n, (o = inst(name, status)));
	json_object_put(o);
}

static void
none_given(struct instcache *ic)
{
	struct json_object	*l;

	ATF_CHECK((l = instcache_list(ic)) == NULL);
	json_object_put(l);
}

ATF_TC_WITHOUT_HEAD(kept_while_open);
ATF_TC_BODY(kept_while_open, tc)
{
	struct instcache	*ic = instcache_new();
	struct json_object	*l;
	uint64_t		 t;
	char			 buf[256];

	/* the stream not open: nothing may be kept */
	ATF_CHECK_EQ(instcache_asking(ic), 0);
	instcache_fill(ic, 0, (l = list_of("a", "b")));
	json_object_put(l);
	none_given(ic);

	instcache_open(ic);
	ATF_REQUIRE(instcache_asking(ic) != 0);
	filled(ic, "a", "b");
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Running b:Running");

	/* lost: gone, and a list asked before is not kept either */
	t = instcache_asking(ic);
	instcache_lost(ic);
	none_given(ic);
	instcache_open(ic);
	instcache_fill(ic, t, (l = list_of("a", "b")));
	json_object_put(l);
	none_given(ic);
	instcache_free(ic);
}

ATF_TC_WITHOUT_HEAD(named_read_again);
ATF_TC_BODY(named_read_again, tc)
{
	struct instcache	*ic = instcache_new();
	struct json_object	*l;
	uint64_t		 t;
	const char		*n;
	char			 buf[256];

	instcache_open(ic);
	/* named before the list was asked: the list holds it */
	filled(ic, "a", "b");
	instcache_dirty(ic, "zz");
	filled(ic, "a", "b");
	ATF_CHECK(!instcache_waiting(ic));

	/* named while it was on its way: read again first */
	t = instcache_asking(ic);
	instcache_dirty(ic, "a");
	instcache_fill(ic, t, (l = list_of("a", "b")));
	json_object_put(l);
	ATF_CHECK(instcache_waiting(ic));
	none_given(ic);
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	ATF_CHECK_STREQ(n, "a");
	ATF_CHECK(instcache_to_read(ic) == NULL);
	/* named again while being read: read twice */
	instcache_dirty(ic, "a");
	read_as(ic, "a", "a", "Stopped");
	ATF_CHECK(instcache_waiting(ic));
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	ATF_CHECK_STREQ(n, "a");
	read_as(ic, "a", "a", "Frozen");
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Frozen b:Running");

	/* a new one at the end, a deleted one gone */
	instcache_dirty(ic, "c");
	instcache_dirty(ic, "b");
	while ((n = instcache_to_read(ic)) != NULL) {
		if (strcmp(n, "c") == 0) {
			read_as(ic, "c", "c", "Running");
		} else
			instcache_read(ic, n, NULL);
	}
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Frozen c:Running");
	/* where Incus lists it: by name */
	instcache_dirty(ic, "b2");
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	read_as(ic, n, "b2", "Running");
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Frozen b2:Running c:Running");

	/* a read that failed: the name is read again, not lost */
	instcache_dirty(ic, "c");
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	ATF_CHECK(instcache_to_read(ic) == NULL);
	instcache_unread(ic, "c");
	ATF_CHECK(instcache_waiting(ic));
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	ATF_CHECK_STREQ(n, "c");
	read_as(ic, n, "c", "Stopped");
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Frozen b2:Running c:Stopped");

	/* an answer naming another instance drops the list */
	instcache_dirty(ic, "a");
	ATF_REQUIRE((n = instcache_to_read(ic)) != NULL);
	read_as(ic, "a", "x", "Running");
	none_given(ic);
	instcache_free(ic);
}

ATF_TC_WITHOUT_HEAD(drop);
ATF_TC_BODY(drop, tc)
{
	struct instcache	*ic = instcache_new();
	uint64_t		 t;
	char			 buf[256];

	instcache_open(ic);
	filled(ic, "a", NULL);
	instcache_drop(ic);
	none_given(ic);
	/* a list that failed keeps nothing, and a later one is kept */
	t = instcache_asking(ic);
	instcache_fill(ic, t, NULL);
	none_given(ic);
	filled(ic, "a", NULL);
	given(ic, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "a:Running");
	instcache_free(ic);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, kept_while_open);
	ATF_TP_ADD_TC(tp, named_read_again);
	ATF_TP_ADD_TC(tp, drop);
	return atf_no_error();
}
