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
 * An instance's event, or word that a network changed, out of one
 * message of Incus's event stream.
 */

#include <string.h>

#include <json.h>

#include "evparse.h"
#include "names.h"

static const char *
str(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
evparse(const char *text, char *name, size_t namelen, char *action,
    size_t actionlen)
{
	struct json_object	*root, *md = NULL;
	const char		*type, *act, *src, *n, *q;
	size_t			 nl;
	int			 rc = -1;

	if ((root = json_tokener_parse(text)) == NULL)
		return -1;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "metadata", &md) ||
	    !json_object_is_type(md, json_type_object))
		goto out;
	type = str(root, "type");
	act = str(md, "action");
	src = str(md, "source");
	if (type == NULL || strcmp(type, "lifecycle") != 0 || act == NULL ||
	    src == NULL)
		goto out;
	/* any network, by any name: a record kept of one is dropped */
	if (strncmp(act, "network-", 8) == 0 &&
	    strncmp(src, "/1.0/networks/", 14) == 0) {
		rc = EVPARSE_NETWORK;
		goto out;
	}
	/* a member's configuration changed: the cluster mailbox's word */
	if (strcmp(act, "cluster-member-updated") == 0 &&
	    strncmp(src, "/1.0/cluster/members/", 21) == 0)
		n = src + 21;
	else if (strncmp(act, "instance-", 9) == 0 &&
	    strncmp(src, "/1.0/instances/", 15) == 0)
		n = src + 15;
	else
		goto out;
	/* a snapshot's or a backup's events name more after the instance */
	nl = strcspn(n, "/?");
	if (n[nl] == '/' || nl == 0 || nl >= namelen)
		goto out;
	for (q = act; *q != '\0'; q++)
		if ((*q < 'a' || *q > 'z') && *q != '-')
			goto out;
	if ((size_t)(q - act) >= actionlen)
		goto out;
	memcpy(name, n, nl);
	name[nl] = '\0';
	if (!name_instance_ok(name))
		goto out;
	memcpy(action, act, (size_t)(q - act) + 1);
	rc = 0;
out:
	json_object_put(root);
	return rc;
}
