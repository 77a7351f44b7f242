// SPDX-License-Identifier: GPL-2.0
/* Listeners, clients, saved-SYN reads and netns entry (see net_helpers.h). */
#define _GNU_SOURCE
#include "net_helpers.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void log_err(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	fprintf(stderr, "syntwin: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	errno = saved;
}

socklen_t make_sockaddr(int family, const char *addr, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		if (inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
			return 0;
		return sizeof(*s4);
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
			return 0;
		return sizeof(*s6);
	}
	return 0;
}

int start_listener(int family, const char *addr, uint16_t port, int save_syn, int backlog)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(family, addr, port, &ss);
	int one = 1, fd;

	if (!len) {
		errno = EINVAL;
		log_err("bad listen address %s", addr);
		return -1;
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_err("socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* IPv6 listeners take IPv6 only, so :: and 0.0.0.0 can share a port. */
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (save_syn >= 0 &&
	    setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &save_syn, sizeof(save_syn)) < 0) {
		log_err("setsockopt(TCP_SAVE_SYN=%d)", save_syn);
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		log_err("bind %s:%u", addr, port);
		goto fail;
	}
	if (listen(fd, backlog) < 0) {
		log_err("listen");
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

uint16_t socket_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

void socket_addr(int fd, int peer, char *buf, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t l = sizeof(ss);

	(peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &l);
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, 46);
		*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, 46);
		*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
}

int connect_to(int family, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(family, addr, port, &ss);
	int fd;

	if (!len) {
		errno = EINVAL;
		log_err("bad address %s", addr);
		return -1;
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_err("socket");
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		log_err("connect %s:%u", addr, port);
		close(fd);
		return -1;
	}
	return fd;
}

int read_saved_syn(int fd, void *buf, size_t cap, size_t *needed)
{
	socklen_t len = cap;

	if (getsockopt(fd, IPPROTO_TCP, TCP_SAVED_SYN, buf, &len) < 0) {
		if (needed)
			*needed = len;
		return -1;
	}
	return (int)len;
}

int open_netns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		log_err("open %s", path);
	return fd;
}

int netns_here(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		log_err("open /proc/self/ns/net");
	return fd;
}

int netns_set(int fd, const char *name)
{
	if (setns(fd, CLONE_NEWNET) == 0)
		return 0;
	log_err("setns %s", name);
	return -1;
}

int enter_netns(const char *name)
{
	int fd = open_netns(name), rc;

	if (fd < 0)
		return -1;
	rc = netns_set(fd, name);
	close(fd);
	return rc;
}

int md5_key_for(int fd, int family, const char *peer)
{
	struct tcp_md5sig sig = { .tcpm_keylen = sizeof(SYNTWIN_MD5_KEY) - 1 };
	struct sockaddr_storage ss;

	make_sockaddr(family, peer, 0, &ss);
	memcpy(&sig.tcpm_addr, &ss, sizeof(ss));
	memcpy(sig.tcpm_key, SYNTWIN_MD5_KEY, sig.tcpm_keylen);
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof(sig))) {
		log_err("setsockopt(TCP_MD5SIG for %s)", peer);
		return -1;
	}
	return 0;
}
