// SPDX-License-Identifier: GPL-2.0
/* The SYN profile parser (profile.h). */
#include "profile.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                                       \
	do {                                            \
		snprintf(err, errlen, __VA_ARGS__);     \
		return -1;                              \
	} while (0)

/* Decimal, or hex after 0x; no sign, no blanks, never octal. */
static int number(const char *v, long min, long max, long *out)
{
	int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	const char *d = hex ? v + 2 : v;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*d) : isdigit((unsigned char)*d)))
		return -1;
	errno = 0;
	*out = strtol(d, &end, hex ? 16 : 10);
	return errno || *end || *out < min || *out > max ? -1 : 0;
}

/* Hex digits (no separators) into @buf; returns the byte count or -1. */
static long hex_bytes(const char *v, uint8_t *buf, size_t cap)
{
	size_t n = strlen(v);

	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		char byte[3] = { v[i], v[i + 1], 0 };

		if (!isxdigit((unsigned char)v[i]) || !isxdigit((unsigned char)v[i + 1]))
			return -1;
		buf[i / 2] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return (long)(n / 2);
}

/* One tcpopt item, appended to @s->tcpopt. */
static int tcp_item(char *item, struct syn_shape *s, char *err, size_t errlen)
{
	uint8_t *o = s->tcpopt + s->tcpopt_len, tmp[40];
	size_t room = sizeof(s->tcpopt) - s->tcpopt_len, len;
	char *arg = strchr(item, ':');
	long v, e;

	if (arg)
		*arg++ = 0;
	if (!strcmp(item, "nop") || !strcmp(item, "eol")) {
		tmp[0] = item[0] == 'n' ? 1 : 0;
		len = 1;
	} else if (!strcmp(item, "sok")) {
		tmp[0] = 4, tmp[1] = 2;
		len = 2;
	} else if (!strcmp(item, "mss") && arg && !number(arg, 0, 65535, &v)) {
		tmp[0] = 2, tmp[1] = 4, tmp[2] = (uint8_t)(v >> 8), tmp[3] = (uint8_t)v;
		len = 4;
	} else if (!strcmp(item, "ws") && arg && !number(arg, 0, 255, &v)) {
		tmp[0] = 3, tmp[1] = 3, tmp[2] = (uint8_t)v;
		len = 3;
	} else if (!strcmp(item, "ts") && arg && strchr(arg, ':')) {
		char *ecr = strchr(arg, ':');

		*ecr++ = 0;
		if (number(arg, 0, 0xffffffffL, &v) || number(ecr, 0, 0xffffffffL, &e))
			FAIL("ts: 'ts:VAL:ECR' needs two 32-bit numbers");
		tmp[0] = 8, tmp[1] = 10;
		for (int i = 0; i < 4; i++) {
			tmp[2 + i] = (uint8_t)(v >> (24 - 8 * i));
			tmp[6 + i] = (uint8_t)(e >> (24 - 8 * i));
		}
		len = 10;
	} else if (!strcmp(item, "hex") && arg) {
		long n = hex_bytes(arg, tmp, sizeof(tmp));

		if (n <= 0)
			FAIL("hex: '%s' is not an even number of hex digits (at most 40 bytes)", arg);
		len = (size_t)n;
	} else {
		FAIL("tcpopt item '%s%s%s' is not one of mss:N ws:N sok ts:V:E nop eol hex:BYTES",
		     item, arg ? ":" : "", arg ? arg : "");
	}
	if (len > room)
		FAIL("tcpopt: more than 40 bytes of TCP options");
	memcpy(o, tmp, len);
	s->tcpopt_len += len;
	return 0;
}

static int ext_item(char *item, struct syn_shape *s, char *err, size_t errlen)
{
	char *arg = strchr(item, ':');
	long n;

	if (s->next_ext == SHAPE_MAX_EXT)
		FAIL("ext: at most %d extension headers", SHAPE_MAX_EXT);
	if (!arg)
		FAIL("ext item '%s' is not hop:HEX, dst:HEX or rt:HEX", item);
	*arg++ = 0;
	if (strcmp(item, "hop") && strcmp(item, "dst") && strcmp(item, "rt"))
		FAIL("ext item '%s' is not hop:HEX, dst:HEX or rt:HEX", item);
	n = hex_bytes(arg, s->ext[s->next_ext].body, sizeof(s->ext[0].body));
	if (n < 0 || (n + 2) % 8)
		FAIL("ext %s: 2 + %ld bytes is not a multiple of 8 (or bad hex)", item, n);
	/* rt: a routing header, its body from the routing type and segments left on */
	s->ext[s->next_ext].type = item[0] == 'h' ? 0 : item[0] == 'r' ? 43 : 60;
	s->ext[s->next_ext].len = (size_t)n;
	s->next_ext++;
	return 0;
}

/* Splits @v at commas and feeds each item to @fn. */
static int each_item(char *v, int (*fn)(char *, struct syn_shape *, char *, size_t),
		     struct syn_shape *s, char *err, size_t errlen)
{
	char *save, *item;

	for (item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (fn(item, s, err, errlen))
			return -1;
	return 0;
}

static int field(char *key, char *v, struct syn_shape *s, char *err, size_t errlen)
{
	long n;

	if (!strcmp(key, "family")) {
		if (strcmp(v, "4") && strcmp(v, "6"))
			FAIL("family=%s: want 4 or 6", v);
		s->family = v[0] - '0';
	} else if (!strcmp(key, "ttl") || !strcmp(key, "tos")) {
		if (number(v, 0, 255, &n))
			FAIL("%s=%s: want 0..255", key, v);
		*(key[1] == 't' ? &s->ttl : &s->tos) = (int)n;
	} else if (!strcmp(key, "df")) {
		if (number(v, 0, 1, &n))
			FAIL("df=%s: want 0 or 1", v);
		s->df = (int)n;
	} else if (!strcmp(key, "ipid") || !strcmp(key, "win") || !strcmp(key, "urg")) {
		if (number(v, 0, 65535, &n))
			FAIL("%s=%s: want 0..65535", key, v);
		*(key[0] == 'i' ? &s->ipid : key[0] == 'w' ? &s->win : &s->urg) = (uint16_t)n;
	} else if (!strcmp(key, "flow")) {
		if (number(v, 0, 0xfffff, &n))
			FAIL("flow=%s: want a 20-bit flow label", v);
		s->flow = (uint32_t)n;
	} else if (!strcmp(key, "res")) {
		if (number(v, 0, 15, &n))
			FAIL("res=%s: want 0..15 (the four reserved bits)", v);
		s->res = (uint8_t)n;
	} else if (!strcmp(key, "flags")) {
		if (v[0] != 'S')
			FAIL("flags=%s: must start with S (a SYN)", v);
		s->flags = 0x02;
		for (const char *c = v + 1; *c; c++) {
			/* A (ACK) only with drop=: a SYN with ACK to a listener, which it
			 * refuses (checked once the line is read) */
			const char *letters = "ECUPFRA";
			const uint8_t bits[] = { 0x40, 0x80, 0x20, 0x08, 0x01, 0x04, 0x10 };
			const char *at = strchr(letters, *c);

			if (!at || !*c)
				FAIL("flags=%s: '%c' is not E, C, U, P, F, R or A", v, *c);
			s->flags |= bits[at - letters];
		}
	} else if (!strcmp(key, "tcpopt")) {
		if (each_item(v, tcp_item, s, err, errlen))
			return -1;
		if (s->tcpopt_len % 4)
			FAIL("tcpopt: %zu bytes is not a multiple of 4 (add nop or eol)", s->tcpopt_len);
	} else if (!strcmp(key, "ipopt")) {
		n = hex_bytes(v, s->ipopt, sizeof(s->ipopt));
		if (n < 0 || n % 4)
			FAIL("ipopt=%s: want hex bytes, a multiple of 4, at most 40", v);
		s->ipopt_len = (size_t)n;
	} else if (!strcmp(key, "ext")) {
		if (each_item(v, ext_item, s, err, errlen))
			return -1;
	} else if (!strcmp(key, "rexmit")) {
		if (number(v, 1, 3, &n))
			FAIL("rexmit=%s: want 1..3 retransmitted copies", v);
		s->rexmit = (int)n;
	} else if (!strcmp(key, "bad")) {
		if (!strcmp(v, "csum"))
			s->bad = BAD_CSUM;
		else if (!strcmp(v, "doff-short"))
			s->bad = BAD_DOFF_SHORT;
		else if (!strcmp(v, "doff-long"))
			s->bad = BAD_DOFF_LONG;
		else
			FAIL("bad=%s: want csum, doff-short or doff-long", v);
	} else if (!strcmp(key, "src") || !strcmp(key, "dst")) {
		int i = key[0] == 'd';

		if (inet_pton(AF_INET, v, s->addr[i]) == 1)
			s->addr_family[i] = 4;
		else if (inet_pton(AF_INET6, v, s->addr[i]) == 1)
			s->addr_family[i] = 6;
		else
			FAIL("%s=%s: want an IPv4 or IPv6 address", key, v);
	} else if (!strcmp(key, "drop")) {
		if (!*v || strlen(v) >= sizeof(s->drop_rule) ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(v))
			FAIL("drop=%s: want a rule name of docs/verdicts.md's drop table (a-z, 0-9, -)", v);
		s->bad = BAD_RULE;
		snprintf(s->drop_rule, sizeof(s->drop_rule), "%s", v);
	} else if (!strcmp(key, "since")) {
		char tail;

		if (sscanf(v, "%3u.%3u%c", &s->since_major, &s->since_minor, &tail) != 2 ||
		    strspn(v, "0123456789.") != strlen(v) || !s->since_major)
			FAIL("since=%s: want the kernel version the drop rule holds from (6.7)", v);
	} else {
		FAIL("unknown field '%s'", key);
	}
	return 0;
}

size_t shape_header_bytes(const struct syn_shape *s)
{
	size_t n = s->family == 6 ? 40 : 20 + s->ipopt_len;

	for (int i = 0; i < s->next_ext; i++)
		n += 2 + s->ext[i].len;
	return n + 20 + s->tcpopt_len;
}

int profile_parse_line(const char *line, const char *stem, struct syn_shape *s, char *err,
		       size_t errlen)
{
	char buf[1024], *save, *tok;
	int first = 1;

	if (strlen(line) >= sizeof(buf))
		FAIL("line longer than %zu characters", sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#")] = 0;
	memset(s, 0, sizeof(*s));
	s->ttl = 64, s->df = 1, s->win = 64240, s->flags = 0x02;
	for (tok = strtok_r(buf, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');

		if (first) {
			if (eq)
				FAIL("a line starts with the shape's name, not '%s'", tok);
			snprintf(s->name, sizeof(s->name), "%s/%s", stem, tok);
			first = 0;
			continue;
		}
		if (!eq || !eq[1])
			FAIL("'%s' is not key=value", tok);
		*eq = 0;
		if (field(tok, eq + 1, s, err, errlen))
			return -1;
	}
	if (first)
		return 0;
	if (!s->family)
		FAIL("shape %s has no family=4|6", s->name);
	if (s->family == 6 && (s->ipopt_len || s->ipid))
		FAIL("shape %s: ipopt and ipid are IPv4 fields", s->name);
	if (s->family == 4 && (s->next_ext || s->flow))
		FAIL("shape %s: ext and flow are IPv6 fields", s->name);
	for (int i = 0; i < 2; i++) {
		if (s->addr_family[i] && s->addr_family[i] != s->family)
			FAIL("shape %s: %s= is not an IPv%d address", s->name, i ? "dst" : "src",
			     s->family);
		/* (no SYN-ACK could find its way back: such a SYN is made to be dropped) */
		if (s->addr_family[i] && s->bad != BAD_RULE)
			FAIL("shape %s: %s= needs drop=RULE", s->name, i ? "dst" : "src");
	}
	if ((s->flags & 0x10) && s->bad != BAD_RULE)
		FAIL("shape %s: flags with A need drop=RULE (a SYN with ACK is made to be "
		     "refused)", s->name);
	if (s->since_major && s->bad != BAD_RULE)
		FAIL("shape %s: since= needs drop=RULE", s->name);
	if (shape_header_bytes(s) > SHAPE_MAX_HEADERS)
		FAIL("shape %s: its headers take %zu bytes, more than %d", s->name,
		     shape_header_bytes(s), SHAPE_MAX_HEADERS);
	return 1;
}

int profile_load(const char *path, struct syn_shape *out, size_t cap, size_t *n, char *err,
		 size_t errlen)
{
	char line[1100], stem[40], why[200];
	const char *base = strrchr(path, '/');
	FILE *f = fopen(path, "re");
	int lineno = 0;

	base = base ? base + 1 : path;
	snprintf(stem, sizeof(stem), "%.*s", (int)strcspn(base, "."), base);
	if (!f)
		FAIL("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		int rc;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (*n == cap) {
			fclose(f);
			FAIL("%s:%d: more than %zu shapes in all", path, lineno, cap);
		}
		rc = profile_parse_line(line, stem, &out[*n], why, sizeof(why));
		if (rc < 0) {
			fclose(f);
			FAIL("%s:%d: %s", path, lineno, why);
		}
		*n += (size_t)rc;
	}
	fclose(f);
	return 0;
}
