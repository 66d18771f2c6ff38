/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.c -- terminal-safe text (see escape.h). */
#include "escape.h"

#include <stdio.h>
#include <string.h>

int utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char b = s[0], lo = 0x80, hi = 0xbf;
	int len;

	if (b < 0x80)
		return 1;
	if (b >= 0xc2 && b <= 0xdf)
		len = 2;
	else if (b >= 0xe0 && b <= 0xef) {
		len = 3;
		if (b == 0xe0)
			lo = 0xa0; /* overlong */
		else if (b == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		if (b == 0xf0)
			lo = 0x90;
		else if (b == 0xf4)
			hi = 0x8f; /* > U+10FFFF */
	} else
		return -1;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return -i;
	}
	return len;
}

static const char *named(unsigned char c)
{
	switch (c) {
	case '\a': return "\\a";
	case '\b': return "\\b";
	case '\t': return "\\t";
	case '\n': return "\\n";
	case '\v': return "\\v";
	case '\f': return "\\f";
	case '\r': return "\\r";
	case '\\': return "\\\\";
	default: return NULL;
	}
}

char *cescape(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s), o = 0;

	if (!len)
		return buf;
	for (size_t i = 0; i < n;) {
		char piece[20];
		const char *name = named(s[i]);
		size_t pl;
		int l = utf8_seq(s + i, n - i);

		if (name) {
			pl = (size_t)snprintf(piece, sizeof(piece), "%s", name);
			i++;
		} else if (l < 0 || s[i] < 0x20 || s[i] == 0x7f || (l == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			/* Invalid UTF-8, C0, DEL, or C1 (U+0080-U+009F is
			 * 0xc2 0x80-0x9f): every byte as \xHH. */
			size_t k = l < 0 ? (size_t)-l : (size_t)l;

			pl = 0;
			for (size_t b = 0; b < k; b++)
				pl += (size_t)snprintf(piece + pl, sizeof(piece) - pl, "\\x%02x", s[i + b]);
			i += k;
		} else {
			memcpy(piece, s + i, (size_t)l);
			pl = (size_t)l;
			i += (size_t)l;
		}
		if (o + pl + 1 > len)
			break;
		memcpy(buf + o, piece, pl);
		o += pl;
	}
	buf[o] = '\0';
	return buf;
}
