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
 * The explicit proxy's view of a request head that httphead_parse
 * accepted with CONNECT allowed: which port the target names, and, for
 * an absolute-URI request, the head as the origin server is to get it.
 * Pure, no I/O, so that unit tests and a fuzzer reach every byte.
 *
 *  - The port: the target's ("CONNECT name:port", "http://name:port/"),
 *    else the Host's, else 80 (an absolute http:// URI).
 *  - The origin form: the request line's target becomes its path and
 *    query ("/" when it has none; a fragment is dropped); the header
 *    lines Connection, Proxy-Connection, Keep-Alive and
 *    Proxy-Authorization are left out, and "Connection: close" is
 *    added: one request per connection, so that a second request on it
 *    can never reach this server in another host's name.
 */

#ifndef JB_PROXYHEAD_H
#define JB_PROXYHEAD_H

#include <stddef.h>
#include <stdint.h>

/*
 * The port of the head head[0..len) (its request line and headers, up
 * to and with the empty line): 1-65535, or 0 when the request line is
 * not "METHOD TARGET VERSION" with a CONNECT authority or an http://
 * target.
 */
uint16_t proxyhead_port(const char *head, size_t len);

/*
 * The origin-form head of the absolute-URI request head[0..len) into
 * out[0..outlen).  Returns its length, or -1 when head is not an
 * absolute-URI request head or out is too small.
 */
long	proxyhead_origin(const char *head, size_t len, char *out,
	    size_t outlen);

#endif /* JB_PROXYHEAD_H */
