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
 * ADDRS: the addresses a new container may not take, for the parent's
 * allocator (addralloc.h).  Held: an address in any instance's NIC
 * devices (ours or not, on any network: CREATE refuses those too), and
 * a lease whose MAC is an instance's (its current address).  Leased: a
 * lease for a MAC no instance has, a deleted container's; dnsmasq does
 * not give that address to anyone else until it expires, so the parent
 * skips it while others are free.
 *
 * Gap: Incus 6.0 lists only the leases of its instances' MACs, so the
 * second kind is seen only from an Incus that reports them.  Incus
 * releases a NIC's lease when the NIC goes, which keeps them rare; one
 * that stays makes dnsmasq lease its new owner a dynamic address instead.
 */

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "incus.h"
#include "log.h"
#include "ops.h"

struct addrs {
	struct jb_addrs		 held, leased;
	char			(*macs)[18];	/* the instances' NICs, lower case */
	size_t			 nmacs;
	/* the leases, asked beside the instances: r->call is the list */
	struct incus_call	*lcall;		/* in flight, or NULL */
	struct json_object	*leases;	/* as read, until the list is */
	int			 listed;	/* the list is read */
};

static void	addrs_insts(void *, struct json_object *, const char *);
static void	addrs_leases(void *, struct json_object *, const char *);
static void	addrs_end(struct op_req *);

static int
ipv4_of(const char *s, uint32_t *a)
{
	struct in_addr	in;

	if (s == NULL || inet_pton(AF_INET, s, &in) != 1)
		return 0;
	*a = ntohl(in.s_addr);
	return 1;
}

static void
addrs_add(struct op_req *r, struct jb_addrs *b, uint32_t a)
{
	if (b->n == JB_ADDRS_MAX) {
		op_send(r, IMSG_INCUS_ADDRS, -1, b, sizeof(*b));
		b->n = 0;
	}
	b->addr[b->n++] = a;
}

static void
addrs_free(void *p)
{
	struct addrs	*ad = p;

	if (ad->lcall != NULL)
		incus_cancel(ad->lcall);
	if (ad->leases != NULL)
		json_object_put(ad->leases);
	free(ad->macs);
	free(ad);
}

/*
 * "A.B.C.D-E.F.G.H" ranges, comma-separated, spaces around them allowed
 * (Incus trims them)
 */
int
dhcp_ranges_parse(const char *s, struct jb_netinfo *ni)
{
	char		 buf[256], *p, *item, *dash;
	uint32_t	 first, last;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return -1;
	ni->ndhcp = 0;
	for (p = buf; (item = strsep(&p, ",")) != NULL;) {
		item += strspn(item, " ");
		item[strcspn(item, " ")] = '\0';
		if ((dash = strchr(item, '-')) == NULL)
			return -1;
		*dash++ = '\0';
		if (!ipv4_of(item, &first) || !ipv4_of(dash, &last) ||
		    first > last || ni->ndhcp == JB_DHCP_RANGES_MAX)
			return -1;
		ni->dhcp_first[ni->ndhcp] = first;
		ni->dhcp_last[ni->ndhcp] = last;
		ni->ndhcp++;
	}
	return ni->ndhcp > 0 ? 0 : -1;
}

void
op_addrs(uint32_t rid)
{
	struct op_req	*r;
	struct addrs	*ad;
	char		 path[64];

	r = req_new(rid, IMSG_INCUS_ADDRS, "");
	(void)snprintf(r->what, sizeof(r->what), "addresses on %s",
	    ops_bridge);
	if ((ad = calloc(1, sizeof(*ad))) == NULL)
		fatal("%s", __func__);
	ad->held.kind = JB_ADDRS_HELD;
	ad->leased.kind = JB_ADDRS_LEASED;
	r->priv = ad;
	r->priv_free = addrs_free;
	/* the two reads at once: Incus builds each from every instance */
	(void)snprintf(path, sizeof(path), "/1.0/networks/%s/leases",
	    ops_bridge);
	if ((ad->lcall = incus_get_recent(ops_ic, path, addrs_leases,
	    r)) == NULL ||
	    (r->call = incus_instances_list(ops_ic, NULL, NULL, addrs_insts,
	    r)) == NULL)
		fatal("%s", __func__);
}

static void
mac_add(struct addrs *ad, const char *mac)
{
	if (mac == NULL || strlen(mac) != 17)
		return;
	if ((ad->nmacs & 63) == 0 && (ad->macs = reallocarray(ad->macs,
	    ad->nmacs + 64, sizeof(*ad->macs))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(ad->macs[ad->nmacs++], mac, sizeof(ad->macs[0]));
}

/* NIC addresses, and the MACs set on a NIC (the suite's are) */
static void
addrs_devices(struct op_req *r, struct json_object *devs)
{
	struct addrs	*ad = r->priv;
	uint32_t	 a;

	if (devs == NULL)
		return;
	json_object_object_foreach(devs, dev, d) {
		(void)dev;
		if (ipv4_of(jget_str(d, "ipv4.address"), &a))
			addrs_add(r, &ad->held, a);
		mac_add(ad, jget_str(d, "hwaddr"));
	}
}

static void
addrs_insts(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct addrs		*ad = r->priv;
	struct json_object	*inst, *cfg;
	size_t			 i, n, l;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		inst = json_object_array_get_idx(list, i);
		addrs_devices(r, jget_obj(inst, "expanded_devices"));
		addrs_devices(r, jget_obj(inst, "devices"));
		/* and every MAC Incus chose: volatile.<device>.hwaddr */
		if ((cfg = jget_obj(inst, "config")) == NULL)
			continue;
		json_object_object_foreach(cfg, k, v) {
			l = strlen(k);
			if (strncmp(k, "volatile.", 9) != 0 || l < 16 ||
			    strcmp(k + l - 7, ".hwaddr") != 0 ||
			    !json_object_is_type(v, json_type_string))
				continue;
			mac_add(ad, json_object_get_string(v));
		}
	}
	ad->listed = 1;
	if (ad->lcall == NULL)
		addrs_end(r);
}

static int
mac_known(const struct addrs *ad, const char *mac)
{
	size_t	i;

	for (i = 0; i < ad->nmacs; i++)
		if (strcasecmp(ad->macs[i], mac) == 0)
			return 1;
	return 0;
}

static void
addrs_leases(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct addrs		*ad = r->priv;

	ad->lcall = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	ad->leases = json_object_get(list);
	if (ad->listed)
		addrs_end(r);
}

/* both are read: each lease is judged by the instances' MACs */
static void
addrs_end(struct op_req *r)
{
	struct addrs		*ad = r->priv;
	struct json_object	*l, *list = ad->leases;
	const char		*type, *mac;
	uint32_t		 a;
	size_t			 i, n;

	n = json_object_is_type(list, json_type_array) ?
	    json_object_array_length(list) : 0;
	for (i = 0; i < n; i++) {
		l = json_object_array_get_idx(list, i);
		if (!ipv4_of(jget_str(l, "address"), &a))
			continue;
		type = jget_str(l, "type");
		mac = jget_str(l, "hwaddr");
		if (type != NULL && strcmp(type, "dynamic") == 0 &&
		    (mac == NULL || !mac_known(ad, mac)))
			addrs_add(r, &ad->leased, a);
		else
			addrs_add(r, &ad->held, a);
	}
	if (ad->held.n > 0)
		op_send(r, IMSG_INCUS_ADDRS, -1, &ad->held, sizeof(ad->held));
	if (ad->leased.n > 0)
		op_send(r, IMSG_INCUS_ADDRS, -1, &ad->leased,
		    sizeof(ad->leased));
	req_done(r, 1, NULL);
}
