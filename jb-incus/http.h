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
 * A small asynchronous HTTP/1.1 client for the Incus REST API, driven by
 * libevent bufferevents so that jb-incus never blocks its loop.
 *
 * Two layers:
 *  - http_parser: a pure, incremental response parser (feed bytes, get a
 *    state).  It never touches a socket, so it is unit tested and fuzzed.
 *  - http_client: a pool of keep-alive connections to one endpoint, either
 *    "unix:/path/to/socket" or "https://host:port" (client certificate).
 *    Requests are queued; each connection carries one request at a time.
 *
 * Callbacks are never called from inside the function that started the
 * request, and a callback may submit new requests or free the client.
 */

#ifndef JB_HTTP_H
#define JB_HTTP_H

#include <stddef.h>

#define HTTP_MAX_HEAD		(64 * 1024)		/* status + headers */
#define HTTP_MAX_BODY		(64 * 1024 * 1024)
#define HTTP_MAX_HEADERS	128
#define HTTP_MAX_CHUNKLINE	4096	/* chunk size + extensions */
#define HTTP_MAX_INTERIM	16	/* 1xx responses before the real one */

struct event_base;
struct bufferevent;

struct http_header {
	char		*name;
	char		*value;
};

struct http_response {
	int			 status;	/* 100..999 */
	int			 minor;		/* HTTP/1.minor */
	char			*reason;
	struct http_header	*headers;
	size_t			 nheaders;
	char			*body;		/* NUL-terminated copy */
	size_t			 bodylen;
	int			 keepalive;
	struct bufferevent	*upgraded;	/* 101: see http_response_take_bev */
};

enum http_parse {
	HTTP_PARSE_MORE,	/* feed more bytes (or call http_parser_eof) */
	HTTP_PARSE_DONE,	/* a complete response is ready */
	HTTP_PARSE_ERROR	/* malformed or over a limit; see error */
};

enum http_pstate {
	HP_STATUS,
	HP_HEADER,
	HP_BODY_LENGTH,
	HP_BODY_EOF,
	HP_CHUNK_SIZE,
	HP_CHUNK_DATA,
	HP_CHUNK_END,
	HP_TRAILER,
	HP_DONE,
	HP_ERROR
};

/* Opaque in spirit; public so that it can live on the stack in tests. */
struct http_parser {
	enum http_pstate	 state;
	int			 head_request;	/* HEAD: no body follows */
	size_t			 max_body;
	size_t			 headbytes;	/* budget used, HTTP_MAX_HEAD */
	int			 interim;	/* 1xx responses skipped */
	char			*line;		/* partial line */
	size_t			 linelen;
	size_t			 linecap;
	size_t			 remain;	/* body or chunk bytes left */
	size_t			 bodycap;
	int			 te_chunked;
	int			 have_length;
	size_t			 length;
	int			 conn_close;
	int			 conn_keepalive;
	struct http_response	*resp;
	const char		*error;
};

void		 http_parser_init(struct http_parser *, int, size_t);
void		 http_parser_free(struct http_parser *);
enum http_parse	 http_parser_feed(struct http_parser *, const void *, size_t,
		    size_t *);
enum http_parse	 http_parser_eof(struct http_parser *);
const char	*http_parser_error(const struct http_parser *);
struct http_response *http_parser_take(struct http_parser *);

void		 http_response_free(struct http_response *);
const char	*http_response_header(const struct http_response *,
		    const char *);
struct bufferevent *http_response_take_bev(struct http_response *);

/* Percent-encode everything but RFC 3986 unreserved characters. */
char		*http_escape(const char *);
/* RFC 9110 token and field-value characters, for headers either way */
int		 http_is_tchar(unsigned char);
int		 http_is_fieldc(unsigned char);

/* The connection pool. */
struct http_client;
struct http_request;

struct http_tls {
	const char	*cert_file;	/* client certificate (PEM) */
	const char	*key_file;	/* its private key (PEM) */
	const char	*ca_file;	/* trusted server certificate or CA */
};

typedef void	 (*http_cb)(struct http_response *, const char *, void *);

struct http_client *http_client_new(struct event_base *, const char *,
		    const struct http_tls *, char *, size_t);
void		 http_client_free(struct http_client *);
void		 http_client_set_max_conns(struct http_client *, int);
void		 http_client_set_timeout(struct http_client *, int);
const char	*http_client_endpoint(const struct http_client *);
int		 http_client_nconns(const struct http_client *);
unsigned long	 http_client_nrequests(const struct http_client *);

struct http_request *http_request_new(struct http_client *, const char *,
		    const char *);
int		 http_request_header(struct http_request *, const char *,
		    const char *);
int		 http_request_body(struct http_request *, const char *,
		    const void *, size_t);
/*
 * A body of len bytes read from fd (from offset 0, with pread) as it is
 * sent, never held whole in memory; the caller keeps fd open until the
 * callback and closes it.  A file shorter than len fails the request.
 */
int		 http_request_body_fd(struct http_request *, const char *,
		    int, size_t);
void		 http_request_timeout(struct http_request *, int);
void		 http_request_max_body(struct http_request *, size_t);
void		 http_request_submit(struct http_request *, http_cb, void *);
void		 http_request_cancel(struct http_request *);

#endif /* JB_HTTP_H */
