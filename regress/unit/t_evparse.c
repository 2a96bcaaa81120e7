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
 * Incus's event stream: an instance's own lifecycle events give its name
 * and action (as Incus 6.0.4 sent them, measured); every other message,
 * and a name or action the suite would not take, gives nothing.
 */

#include <string.h>

#include <atf-c.h>

#include "evparse.h"

static int
ev(const char *text, char *name, char *action)
{
	return evparse(text, name, 64, action, 32);
}

ATF_TC_WITHOUT_HEAD(instance_events);
ATF_TC_BODY(instance_events, tc)
{
	char	name[64], action[32];

	ATF_REQUIRE(ev("{\"type\":\"lifecycle\",\"location\":\"m3\","
	    "\"metadata\":{\"action\":\"instance-migrated\",\"source\":"
	    "\"/1.0/instances/c2\",\"requestor\":{\"address\":\"@\"}}}",
	    name, action) == 0);
	ATF_CHECK_STREQ(name, "c2");
	ATF_CHECK_STREQ(action, "instance-migrated");
	ATF_REQUIRE(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"instance-updated\",\"source\":\"/1.0/instances/jbt1-a?project="
	    "default\"}}", name, action) == 0);
	ATF_CHECK_STREQ(name, "jbt1-a");
	ATF_CHECK_STREQ(action, "instance-updated");
}

ATF_TC_WITHOUT_HEAD(member_updated);
ATF_TC_BODY(member_updated, tc)
{
	char	name[64], action[32];

	ATF_REQUIRE(ev("{\"type\":\"lifecycle\",\"location\":\"m1\","
	    "\"metadata\":{\"action\":\"cluster-member-updated\",\"source\":"
	    "\"/1.0/cluster/members/m2\"}}", name, action) == 0);
	ATF_CHECK_STREQ(name, "m2");
	ATF_CHECK_STREQ(action, "cluster-member-updated");
}

ATF_TC_WITHOUT_HEAD(network_events);
ATF_TC_BODY(network_events, tc)
{
	char	name[64], action[32];

	strcpy(name, "kept");
	strcpy(action, "kept");
	ATF_CHECK(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"network-updated\",\"source\":\"/1.0/networks/jbbr0\"}}",
	    name, action) == EVPARSE_NETWORK);
	/* a name no instance could have still counts; nothing is copied */
	ATF_CHECK(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"network-deleted\",\"source\":\"/1.0/networks/br_0.x?"
	    "project=p\"}}", name, action) == EVPARSE_NETWORK);
	ATF_CHECK(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"network-renamed\",\"source\":\"/1.0/networks/n\"}}", name,
	    action) == EVPARSE_NETWORK);
	ATF_CHECK_STREQ(name, "kept");
	ATF_CHECK_STREQ(action, "kept");
	/* another kind's action, or a network action elsewhere, is not one */
	ATF_CHECK(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"network-acl-updated\",\"source\":\"/1.0/network-acls/a\"}}",
	    name, action) == -1);
	ATF_CHECK(ev("{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
	    "\"instance-updated\",\"source\":\"/1.0/networks/jbbr0\"}}",
	    name, action) == -1);
	ATF_CHECK(ev("{\"type\":\"logging\",\"metadata\":{\"action\":"
	    "\"network-updated\",\"source\":\"/1.0/networks/jbbr0\"}}",
	    name, action) == -1);
}

ATF_TC_WITHOUT_HEAD(others_dropped);
ATF_TC_BODY(others_dropped, tc)
{
	char		 name[64], action[32];
	const char	*bad[] = {
		"",
		"not json",
		"[]",
		"{\"type\":\"logging\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":\"/1.0/instances/c\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"image-created\",\"source\":\"/1.0/images/abc\"}}",
		/* members: only an update, of a member's own path */
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"cluster-member-renamed\",\"source\":"
		    "\"/1.0/cluster/members/m2\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"cluster-member-updated\",\"source\":"
		    "\"/1.0/instances/m2\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"cluster-member-updated\",\"source\":"
		    "\"/1.0/cluster/members/m2/state\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":"
		    "\"/1.0/cluster/members/m2\"}}",
		/* a snapshot's event names more than the instance */
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-snapshot-created\",\"source\":"
		    "\"/1.0/instances/c/snapshots/s0\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":\"/1.0/instances/\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":\"/1.0/instances/../x\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":\"/1.0/instances/a%20b\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-Updated\",\"source\":\"/1.0/instances/c\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated-with-a-very-long-tail\",\"source\":"
		    "\"/1.0/instances/c\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":"
		    "\"instance-updated\",\"source\":\"/1.0/instances/"
		    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":{\"action\":1,"
		    "\"source\":\"/1.0/instances/c\"}}",
		"{\"type\":\"lifecycle\",\"metadata\":\"x\"}",
		NULL
	};
	int		 i;

	for (i = 0; bad[i] != NULL; i++)
		ATF_CHECK_MSG(ev(bad[i], name, action) == -1, "taken: %s",
		    bad[i]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, instance_events);
	ATF_TP_ADD_TC(tp, member_updated);
	ATF_TP_ADD_TC(tp, network_events);
	ATF_TP_ADD_TC(tp, others_dropped);
	return atf_no_error();
}
