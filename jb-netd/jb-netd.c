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
 * jb-netd: the only process that keeps a capability (CAP_NET_ADMIN), and
 * the only one that touches the kernel packet filter.  It stays uid 0
 * because nftables netlink checks the capability, not the uid.
 *
 * At start it installs table inet jailbee for the suite's bridge with no
 * container allowed out: every forwarded packet from the bridge is
 * refused, new connections into it dropped, the host reachable only for
 * DHCP and DNS.  The table stays when jb-netd exits, so the suite fails
 * closed; allowlists (strict) and loose mode open it per container.
 */

#include <sys/socket.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <netinet/in.h>

#include <nftables/libnftables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nftgen.h"
#include "proc.h"
#include "sandbox_procs.h"

/* the bridge's IPv4 address and prefix, as the kernel has them */
static int
bridge_addr(const char *bridge, struct nftgen_net *net)
{
	struct ifaddrs	*ifa, *i;
	uint32_t	 mask;
	int		 found = 0;

	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, bridge) != 0)
			continue;
		net->host = ntohl(((struct sockaddr_in *)(void *)
		    i->ifa_addr)->sin_addr.s_addr);
		mask = ntohl(((struct sockaddr_in *)(void *)
		    i->ifa_netmask)->sin_addr.s_addr);
		net->prefixlen = mask ? 32 - __builtin_ctz(mask) : 0;
		net->subnet = net->host & mask;
		found = 1;
	}
	freeifaddrs(ifa);
	return found ? 0 : -1;
}

/* one atomic transaction; on failure the old table stays as it was */
static int
nft_apply(const char *text, char *err, size_t errlen)
{
	struct nft_ctx	*ctx;
	const char	*e;
	int		 rc;

	if ((ctx = nft_ctx_new(NFT_CTX_DEFAULT)) == NULL) {
		snprintf(err, errlen, "cannot set up libnftables");
		return -1;
	}
	(void)nft_ctx_buffer_output(ctx);
	(void)nft_ctx_buffer_error(ctx);
	rc = nft_run_cmd_from_buffer(ctx, text);
	if (rc != 0) {
		e = nft_ctx_get_error_buffer(ctx);
		snprintf(err, errlen, "%s", e && *e ? e : "nft failed");
		err[strcspn(err, "\n")] = '\0';
	}
	nft_ctx_free(ctx);
	return rc == 0 ? 0 : -1;
}

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct nftgen_net	 net;
	struct in_addr		 in;
	char			 err[512], host[INET_ADDRSTRLEN];
	char			*text = NULL;
	static const int	 keep[] = { CAP_NET_ADMIN };

	child_init(&c, "jb-netd", argc, argv, &a);
	if (a.bridge == NULL)
		fatalx("%s: no bridge given (-b)", c.name);
	memset(&net, 0, sizeof(net));
	net.bridge = a.bridge;
	net.dns_port = 53;
	if (bridge_addr(a.bridge, &net) == -1)
		fatalx("%s: bridge %s has no IPv4 address: without it no "
		    "container can be fenced in, so the suite does not start "
		    "(regress/setup-host creates it)", c.name, a.bridge);
	priv_drop(c.name, NULL, NULL, keep, 1);
	if (nftgen_ruleset(&net, NULL, 0, NULL, &text, err, sizeof(err)) == -1
	    || nft_apply(text, err, sizeof(err)) == -1)
		fatalx("%s: cannot install table inet %s: %s", c.name,
		    NFTGEN_TABLE, err);
	free(text);
	in.s_addr = htonl(net.host);
	inet_ntop(AF_INET, &in, host, sizeof(host));
	(void)snprintf(c.detail, sizeof(c.detail), "table inet %s on %s "
	    "(%s/%u): no container may leave", NFTGEN_TABLE, a.bridge, host,
	    net.prefixlen);
	log_info("%s: %s", c.name, c.detail);
	sandbox_jb_netd();
	child_run(&c);
}
