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
 * The network policy compiled to nftables text (nft -f syntax) for the
 * table "inet jailbee".  Pure: nothing here talks to the kernel; jb-netd
 * hands the text to libnftables, one call per transaction.  Output is
 * deterministic (containers by name, elements by address) for golden tests.
 *
 * The full ruleset is one transaction that creates the table if absent,
 * flushes its rules and its sets and declares everything again, so
 * applying it is atomic and idempotent.  After it, a change is a delta
 * (nftgen_delta): the chains never change, only set and map elements.
 *
 * A container is its address.  The table's rules are the same for any
 * number of containers: each set below is keyed by the container's
 * address first, so a container made, switched or forgotten is a few
 * elements, and a listing of the ruleset (which Incus makes at every
 * instance stop) grows by elements, not by chains and rules.
 *
 *	set allow	ipv4_addr . ipv4_addr . inet_proto . inet_service,
 *			flags timeout: DNS answers for NAME/WILDCARD entries
 *			with a port
 *	set allowany	ipv4_addr . ipv4_addr, flags timeout: DNS answers
 *			for entries without a port (any protocol)
 *	set static	ipv4_addr . ipv4_addr . inet_proto . inet_service,
 *			flags interval: the ADDR/CIDR entries with a port
 *	set staticany	ipv4_addr . ipv4_addr . inet_proto, flags interval:
 *			those without, each with every protocol (0-255)
 *	chain strict	the four sets above, by source address first, then
 *			reject (TCP reset, else ICMP admin-prohibited)
 *  map ctrs	container address : verdict, accept for a loose one,
 *		jump strict for a strict one
 *  set strictdns	the addresses of the strict containers
 *  forward	IPv6 to or from the bridge dropped; established/related
 *		accepted; anything else towards the bridge dropped (no new
 *		inbound, no container to container through the host); from
 *		the bridge the verdict of the source address in ctrs,
 *		unknown sources rejected
 *  input	from the bridge: IPv6 dropped, established/related accepted,
 *		DHCP (udp 67, to any address: clients broadcast) and DNS
 *		(udp/tcp 53 and the resolver port) to the host's bridge
 *		address only, everything else dropped
 *  prerouting	every DNS packet (udp/tcp dport 53) from a source in
 *		strictdns, whatever its destination, DNATed to the resolver
 *  postrouting	traffic from the bridge subnet leaving through another
 *		interface masqueraded (what got there passed forward)
 *
 * With the egress gateway (ngw > 0), also:
 *  set gwports	the gateway's ports
 *  map gwctrs	strict container address : jump gw
 *  chain gw	TCP the source's static elements admit returns, the
 *		rest is DNATed to the gateway (host:gw_port)
 *  prerouting	TCP from the bridge to a port in gwports: the verdict of
 *		the source address in gwctrs
 *  input	the gateway's port on the host's bridge address accepted
 *		for connections DNATed there
 *  strict	UDP to port 443 (QUIC) only through the static sets:
 *		names on that port are the gateway's, and QUIC falls
 *		back to TCP
 *
 * In the same transaction, table "bridge jailbee" holds the containers'
 * anti-spoofing, which Incus's security.ipv4_filtering did before (two
 * base chains per NIC, which every bridged frame walked; here one set
 * lookup whatever the number of containers):
 *  set ports	port name . MAC . address of every container, the port
 *		and MAC named from the address (nicname.h)
 *  set macs	port name . MAC
 *  input, forward
 *		a frame from a container's port (named JB_NIC_IFNAME_PREFIX
 *		and the address) passes when it is IPv4 with the port's MAC
 *		and address, ARP with them as sender and source, or IPv6
 *		with the port's MAC (table inet jailbee drops IPv6); input
 *		also passes DHCP from 0.0.0.0 with the port's MAC, which a
 *		container sends before it has its address; anything else
 *		from such a port, or from one with no element, is dropped
 *
 * Nested networks with the same port are merged before they become
 * static elements, because nft refuses overlapping interval elements.
 */

#ifndef JB_NFTGEN_H
#define JB_NFTGEN_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define NFTGEN_TABLE		"jailbee"	/* family inet */
#define NFTGEN_NAME_MAX		63	/* an Incus instance name */
#define NFTGEN_IDENT_MAX	(NFTGEN_NAME_MAX + 1)	/* with the NUL */
#define NFTGEN_TIMEOUT_MAX	(7 * 24 * 60 * 60)	/* seconds */

/*
 * Refused connection attempts are counted in one of two sets of refused
 * flows, filled by the one rule of chain refuse, which every strict
 * chain jumps to just before it rejects; jb-netd points the rule at the
 * other set before it reads and empties one, so every attempt is counted
 * once (nftgen_refuse_swap).
 */
#define NFTGEN_REFUSE_CHAIN	"refuse"
#define NFTGEN_REFUSED_SET	"refused"	/* refused0, refused1 */
#define NFTGEN_REFUSED_SIZE	8192	/* elements per set */
#define NFTGEN_REFUSED_TIMEOUT	3600	/* seconds; refreshed by a hit */

enum nftgen_mode {
	NFTGEN_STRICT,
	NFTGEN_LOOSE
};

struct nftgen_net {
	const char	*bridge;	/* interface name, e.g. "jbbr0" */
	uint32_t	 subnet;	/* host byte order, host bits clear */
	uint8_t		 prefixlen;	/* 1-30 */
	uint32_t	 host;		/* the host's address on the bridge */
	uint16_t	 dns_port;	/* the resolver, on host */
	/*
	 * The egress gateway (jb-egress), listening on host:gw_port: a
	 * strict container's TCP connections to these ports that no
	 * address or CIDR entry admits are sent there (none: no gateway).
	 */
	const uint16_t	*gw_ports;
	size_t		 ngw;
	uint16_t	 gw_port;
	/*
	 * jb-egress's explicit proxy on host:proxy_port, which a strict
	 * container may connect to (0: none)
	 */
	uint16_t	 proxy_port;
};

struct nftgen_container {
	const char			*name;	/* Incus instance name */
	uint32_t			 addr;	/* in the bridge subnet */
	enum nftgen_mode		 mode;
	/* only ADDR and CIDR kinds are used; names come through DNS */
	const struct egress_entry	*entries;
	size_t				 nentries;
	/* forget the addresses admitted through DNS so far */
	int				 flush_dynamic;
};

/*
 * Names of the sets and chains in the kernel's table now.  Those the new
 * ruleset does not declare (containers gone, strict turned loose) are
 * deleted in the same transaction.  NULL when the table is new.
 */
struct nftgen_present {
	const char *const	*sets;
	size_t			 nsets;
	const char *const	*chains;
	size_t			 nchains;
};

/* one address admitted for a container, as DNS answered it */
struct nftgen_elem {
	uint32_t		 addr;		/* host byte order */
	enum egress_proto	 proto;		/* ANY only with port 0 */
	uint16_t		 port;
};

/* an element of set allow or allowany as the kernel holds it */
struct nftgen_dyn {
	uint32_t		 src;		/* the container's address */
	uint32_t		 dst;
	enum egress_proto	 proto;		/* ANY (allowany): port 0 */
	uint16_t		 port;
};

/*
 * The nft identifier for a container: the Incus name (a letter, then
 * letters, digits and hyphens, no trailing hyphen, at most 63) with '-'
 * turned into '_'.  Incus names hold no '_', so the mapping is one to
 * one and survives restarts.  0, or -1 with a message in err.
 */
int	nftgen_ident(const char *name, char *buf, size_t len, char *err,
	    size_t errlen);
/*
 * The whole ruleset as one transaction: the table's sets emptied (what
 * the resolver admitted too) and filled again.  On success *out is a
 * string the caller frees; on error -1 with a message naming the culprit
 * in err.
 * Refused: a bad bridge or subnet, a container name nftgen_ident refuses,
 * two containers with the same name or address, an address outside the
 * subnet or equal to its network, broadcast or host address, a malformed
 * entry, a present name that is not one of ours.
 */
int	nftgen_ruleset(const struct nftgen_net *net,
	    const struct nftgen_container *c, size_t nc,
	    const struct nftgen_present *present, char **out, char *err,
	    size_t errlen);
/*
 * One transaction taking the table from the containers old (what the
 * last ruleset or delta applied) to new, touching only what differs:
 * a container that is in one list only gets its elements added or
 * deleted; a changed mode is the change of its element in map ctrs
 * (and sets strictdns, gwctrs); changed entries add and delete just the
 * static elements that differ; a changed address is a leave and a come
 * back.  Unchanged containers are not named, so the cost follows the
 * change, not the table.  dyn (ndyn of them) is what sets allow and
 * allowany hold: those of a container that leaves, that comes, or whose
 * flush_dynamic is set are deleted.  The table must have the layout
 * nftgen_ruleset makes.  *out may be "" (nothing changed); the checks and
 * errors are those of nftgen_ruleset, on both lists.
 */
int	nftgen_delta(const struct nftgen_net *net,
	    const struct nftgen_container *old, size_t nold,
	    const struct nftgen_container *new, size_t nnew,
	    const struct nftgen_dyn *dyn, size_t ndyn, char **out, char *err,
	    size_t errlen);
/*
 * Admit addresses for container name, at address src, for timeout
 * seconds (1 to NFTGEN_TIMEOUT_MAX) as one transaction: for each element
 * "add, delete, add" so an element already there gets the new timeout
 * too (a plain add keeps the old one).  The caller passes the longest
 * timeout it wants, since this replaces, never extends.  *out as for
 * nftgen_ruleset.
 */
int	nftgen_admit(const char *name, uint32_t src,
	    const struct nftgen_elem *el, size_t n, unsigned int timeout,
	    char **out, char *err, size_t errlen);

/*
 * Which path enforces entry e for a strict container, in words, for net
 * status: the kernel by address (address and CIDR entries; names on
 * ports outside the gateway's, by the addresses the resolver gave), or
 * the egress gateway by name and address (names on the gateway's ports).
 * Returns buf.
 */
char	*nftgen_path(const struct nftgen_net *net, const struct egress_entry *e,
	    char *buf, size_t len);

/*
 * Point the rule of chain refuse at set refused<which> (0 or 1), as one
 * transaction.  -1 out of memory.  *out as for nftgen_ruleset.
 */
int	nftgen_refuse_swap(int which, char **out);

#endif /* JB_NFTGEN_H */
