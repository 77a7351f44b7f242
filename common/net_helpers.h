/* SPDX-License-Identifier: GPL-2.0 */
/* One place for listeners, clients and netns entry, shared by tests, gen/ and compare/. */
#ifndef SYNTWIN_NET_HELPERS_H
#define SYNTWIN_NET_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Prints "syntwin: <what>: <strerror(errno)>" and keeps errno. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fill @ss from a numeric address and port. Returns the address length, or 0 if @addr is bad. */
socklen_t make_sockaddr(int family, const char *addr, uint16_t port, struct sockaddr_storage *ss);

/*
 * A listening TCP socket on @addr:@port. @save_syn < 0 leaves TCP_SAVE_SYN alone, else sets it
 * (before listen()). @port 0 picks one: read it back with socket_port(). Returns fd or -1.
 */
int start_listener(int family, const char *addr, uint16_t port, int save_syn, int backlog);
uint16_t socket_port(int fd);
/* The local (or with @peer the remote) address of @fd as text into @buf (46 bytes) and its port
 * into *@port. */
void socket_addr(int fd, int peer, char *buf, uint16_t *port);

/* A blocking connect() to @addr:@port. Returns fd or -1. */
int connect_to(int family, const char *addr, uint16_t port);

/*
 * getsockopt(TCP_SAVED_SYN) into @buf of @cap bytes. Returns the byte count (0 = nothing saved),
 * or -1 with errno (EINVAL: @cap too small, and *@needed holds the size the kernel asked for).
 */
int read_saved_syn(int fd, void *buf, size_t cap, size_t *needed);

/* An fd of the network namespace /run/netns/@name (for setns()), or -1 (message printed). */
int open_netns(const char *name);

/* Enter the network namespace /run/netns/@name. Returns 0 or -1. */
int enter_netns(const char *name);

#define SYNTWIN_MD5_KEY "syntwin-md5-key" /* TCP_MD5SIG key of the MD5 source addresses */
/* Sets TCP_MD5SIG with SYNTWIN_MD5_KEY for @peer (numeric) on @fd. Returns 0, or -1 (printed). */
int md5_key_for(int fd, int family, const char *peer);

/* The network namespace this thread is in now, as an fd to come back to with netns_set(), or
 * -1 (message printed). */
int netns_here(void);

/* Enter the network namespace of @fd (from open_netns() or netns_here()); @name says which in
 * the message on failure. Every enter and return goes through here. Returns 0 or -1. */
int netns_set(int fd, const char *name);

#endif
