/* mustache.c — mustache(5) renderer over jansson values; see mustache.h.
 *
 * Two steps per template: parse() turns the source into a flat node array
 * (text, variable, section, inverted section, partial; a section records the
 * index after its last child), applying the standalone-line rules while the
 * source is at hand; render() walks that array against a context stack.
 * Parsing up front means syntax errors are reported even inside sections that
 * are never rendered. Partials are parsed when they are rendered.
 */
#include "mustache.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPOS ((size_t)-1)
#define MAX_DELIM 15 /* longest custom delimiter we accept */

/* ---- growable output buffer ------------------------------------------ */

typedef struct {
  char *p;
  size_t len, cap;
  int oom;
} buf;

static void buf_put(buf *b, const char *s, size_t n) {
  if (b->oom || n == 0) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) {
      if (cap > SIZE_MAX / 2) { b->oom = 1; return; }
      cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) { b->oom = 1; return; }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void buf_puts(buf *b, const char *s) { buf_put(b, s, strlen(s)); }

/* ---- errors ------------------------------------------------------------ */

static void set_error(ddbgen_mustache_error *err, int code, const char *src, size_t pos,
                      const char *source, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static void set_error(ddbgen_mustache_error *err, int code, const char *src, size_t pos,
                      const char *source, const char *fmt, ...) {
  if (!err) return;
  err->code = code;
  int line = 1, col = 1;
  if (src) {
    for (size_t i = 0; i < pos && src[i]; i++) {
      if (src[i] == '\n') { line++; col = 1; } else col++;
    }
  }
  err->line = line;
  err->column = col;
  size_t n = 0;
  if (source) {
    while (source[n] && n + 1 < sizeof err->source) { err->source[n] = source[n]; n++; }
  }
  err->source[n] = '\0';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->text, sizeof err->text, fmt, ap);
  va_end(ap);
}

const char *ddbgen_mustache_strerror(int code) {
  switch (code) {
  case DDBGEN_MUSTACHE_OK: return "ok";
  case DDBGEN_MUSTACHE_ENOMEM: return "out of memory";
  case DDBGEN_MUSTACHE_EINVAL: return "invalid argument";
  case DDBGEN_MUSTACHE_EUNCLOSED_TAG: return "unclosed tag";
  case DDBGEN_MUSTACHE_EUNCLOSED_SECTION: return "unclosed section";
  case DDBGEN_MUSTACHE_EMISMATCHED_CLOSE: return "mismatched close tag";
  case DDBGEN_MUSTACHE_EBAD_DELIMITER: return "bad set-delimiter tag";
  case DDBGEN_MUSTACHE_EEMPTY_TAG: return "empty tag name";
  case DDBGEN_MUSTACHE_ENESTING: return "sections nested too deeply";
  case DDBGEN_MUSTACHE_EPARTIAL_DEPTH: return "partials nested too deeply";
  case DDBGEN_MUSTACHE_EMISSING_PARTIAL: return "missing partial";
  case DDBGEN_MUSTACHE_EMISSING_VAR: return "missing variable";
  default: return "unknown mustache error";
  }
}

/* ---- parsed template ---------------------------------------------------- */

typedef enum { N_TEXT, N_VAR, N_SECTION, N_INVERTED, N_PARTIAL } nkind;

typedef struct {
  nkind kind;
  unsigned char escape;     /* N_VAR: {{x}} (1) vs {{{x}}} / {{&x}} (0) */
  unsigned char bol;        /* starts an output line: a partial's indentation goes first */
  unsigned char standalone; /* N_PARTIAL: standalone tag, its content gets indented */
  size_t pos;               /* offset of the tag (or text) in the source, for errors */
  size_t off, len;          /* N_TEXT: the text; otherwise the tag name */
  size_t ind_off, ind_len;  /* N_PARTIAL: whitespace before a standalone tag */
  size_t end;               /* sections: index of the node after the last child */
} node;

typedef struct {
  const char *src;
  size_t len;
  const char *name; /* for error messages */
  node *nodes;
  size_t n, cap;
} tmpl_t;

static size_t find(const char *s, size_t len, size_t from, const char *pat, size_t plen) {
  if (plen == 0 || len < plen) return NPOS;
  for (size_t i = from; i + plen <= len; i++) {
    if (s[i] == pat[0] && memcmp(s + i, pat, plen) == 0) return i;
  }
  return NPOS;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void trim(const char *s, size_t *a, size_t *b) {
  while (*a < *b && is_space(s[*a])) (*a)++;
  while (*b > *a && is_space(s[*b - 1])) (*b)--;
}

static node *add_node(tmpl_t *t, nkind kind, size_t pos) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 32;
    node *p = realloc(t->nodes, cap * sizeof *p);
    if (!p) return NULL;
    t->nodes = p;
    t->cap = cap;
  }
  node *nd = &t->nodes[t->n++];
  memset(nd, 0, sizeof *nd);
  nd->kind = kind;
  nd->pos = pos;
  return nd;
}

static int at_bol(const char *src, size_t pos) { return pos == 0 || src[pos - 1] == '\n'; }

/* Shortens a name for messages (they have a fixed-size buffer). */
#define NAME_FMT "%.*s"
#define NAME_ARG(len, s) (int)((len) > 60 ? 60 : (len)), (s)

static int nomem(tmpl_t *t, ddbgen_mustache_error *err, size_t pos) {
  set_error(err, DDBGEN_MUSTACHE_ENOMEM, t->src, pos, t->name, "out of memory");
  return DDBGEN_MUSTACHE_ENOMEM;
}

/* Parses "{{=open close=}}" content [a, b) into new delimiters. */
static int parse_delims(const char *s, size_t a, size_t b, char *otag, size_t *olen, char *ctag,
                        size_t *clen) {
  trim(s, &a, &b);
  size_t m = a;
  while (m < b && !is_space(s[m])) m++;
  size_t o_end = m;
  while (m < b && is_space(s[m])) m++;
  size_t c_beg = m;
  while (m < b && !is_space(s[m])) m++;
  if (m != b) return -1; /* a third word */
  size_t ol = o_end - a, cl = b - c_beg;
  if (ol == 0 || cl == 0 || ol > MAX_DELIM || cl > MAX_DELIM) return -1;
  if (memchr(s + a, '=', ol) || memchr(s + c_beg, '=', cl)) return -1;
  memcpy(otag, s + a, ol);
  memcpy(ctag, s + c_beg, cl);
  *olen = ol;
  *clen = cl;
  return 0;
}

static int parse(tmpl_t *t, ddbgen_mustache_error *err) {
  const char *src = t->src;
  size_t len = t->len;
  char otag[MAX_DELIM + 1] = "{{", ctag[MAX_DELIM + 2] = "}}";
  size_t olen = 2, clen = 2;
  size_t open[DDBGEN_MUSTACHE_MAX_NESTING];
  size_t depth = 0;
  size_t pos = 0, text_start = 0;

  for (;;) {
    size_t ts = find(src, len, pos, otag, olen);
    size_t text_end = ts == NPOS ? len : ts;
    size_t p = ts + olen, ce = 0, te = 0;
    char type = 0;
    int standalone = 0;
    size_t ls = ts, le = 0;

    if (ts != NPOS) {
      if (p < len && src[p] && strchr("#^/!>=&{", src[p])) type = src[p++];
      if (type == '{') {
        /* triple mustache: "}" then the close delimiter */
        char cl[MAX_DELIM + 2];
        cl[0] = '}';
        memcpy(cl + 1, ctag, clen);
        ce = find(src, len, p, cl, clen + 1);
        te = ce + clen + 1;
      } else {
        ce = find(src, len, p, ctag, clen);
        te = ce + clen;
      }
      if (ce == NPOS) {
        set_error(err, DDBGEN_MUSTACHE_EUNCLOSED_TAG, src, ts, t->name,
                  "unclosed tag: '%.*s%s' has no closing '%s%.*s'", (int)olen, otag,
                  type == '{' ? "{" : "", type == '{' ? "}" : "", (int)clen, ctag);
        return DDBGEN_MUSTACHE_EUNCLOSED_TAG;
      }
      /* A line holding only whitespace and one non-interpolation tag vanishes
       * entirely: the whitespace before, the tag, and the line ending. */
      if (type && type != '&' && type != '{') {
        size_t i = ts;
        while (i > text_start && (src[i - 1] == ' ' || src[i - 1] == '\t')) i--;
        if (at_bol(src, i)) {
          size_t j = te;
          while (j < len && (src[j] == ' ' || src[j] == '\t')) j++;
          if (j == len) le = j;
          else if (src[j] == '\n') le = j + 1;
          else if (src[j] == '\r' && j + 1 < len && src[j + 1] == '\n') le = j + 2;
          if (le) { standalone = 1; ls = i; text_end = i; }
        }
      }
    }

    if (text_end > text_start) {
      node *nd = add_node(t, N_TEXT, text_start);
      if (!nd) return nomem(t, err, text_start);
      nd->off = text_start;
      nd->len = text_end - text_start;
      nd->bol = (unsigned char)at_bol(src, text_start);
    }
    if (ts == NPOS) break;

    size_t na = p, nb = ce; /* tag content */
    int bol = !standalone && at_bol(src, ts);
    if (type != '!' && type != '=') {
      trim(src, &na, &nb);
      if (na == nb) {
        set_error(err, DDBGEN_MUSTACHE_EEMPTY_TAG, src, ts, t->name, "tag has no name");
        return DDBGEN_MUSTACHE_EEMPTY_TAG;
      }
    }
    switch (type) {
    case '!':
      break;
    case '=': {
      if (ce == p || src[ce - 1] != '=' ||
          parse_delims(src, p, ce - 1, otag, &olen, ctag, &clen) != 0) {
        set_error(err, DDBGEN_MUSTACHE_EBAD_DELIMITER, src, ts, t->name,
                  "bad set-delimiter tag: expected '%.*s=OPEN CLOSE=%.*s' (no spaces or '=' "
                  "inside, at most %d bytes each)",
                  (int)olen, otag, (int)clen, ctag, MAX_DELIM);
        return DDBGEN_MUSTACHE_EBAD_DELIMITER;
      }
      break;
    }
    case '#':
    case '^': {
      if (depth == DDBGEN_MUSTACHE_MAX_NESTING) {
        set_error(err, DDBGEN_MUSTACHE_ENESTING, src, ts, t->name,
                  "sections nested deeper than %d", DDBGEN_MUSTACHE_MAX_NESTING);
        return DDBGEN_MUSTACHE_ENESTING;
      }
      node *nd = add_node(t, type == '#' ? N_SECTION : N_INVERTED, ts);
      if (!nd) return nomem(t, err, ts);
      nd->off = na;
      nd->len = nb - na;
      nd->bol = (unsigned char)bol;
      open[depth++] = t->n - 1;
      break;
    }
    case '/': {
      if (depth == 0) {
        set_error(err, DDBGEN_MUSTACHE_EMISMATCHED_CLOSE, src, ts, t->name,
                  "close tag '/" NAME_FMT "' without an open section", NAME_ARG(nb - na, src + na));
        return DDBGEN_MUSTACHE_EMISMATCHED_CLOSE;
      }
      node *o = &t->nodes[open[depth - 1]];
      if (o->len != nb - na || memcmp(src + o->off, src + na, o->len) != 0) {
        int line = 1, col = 1;
        for (size_t i = 0; i < o->pos; i++) {
          if (src[i] == '\n') { line++; col = 1; } else col++;
        }
        set_error(err, DDBGEN_MUSTACHE_EMISMATCHED_CLOSE, src, ts, t->name,
                  "close tag '/" NAME_FMT "' does not match '%c" NAME_FMT "' opened at %d:%d",
                  NAME_ARG(nb - na, src + na), o->kind == N_SECTION ? '#' : '^',
                  NAME_ARG(o->len, src + o->off), line, col);
        return DDBGEN_MUSTACHE_EMISMATCHED_CLOSE;
      }
      o->end = t->n;
      depth--;
      break;
    }
    case '>': {
      node *nd = add_node(t, N_PARTIAL, ts);
      if (!nd) return nomem(t, err, ts);
      nd->off = na;
      nd->len = nb - na;
      nd->bol = (unsigned char)bol;
      nd->standalone = (unsigned char)standalone;
      nd->ind_off = ls;
      nd->ind_len = standalone ? ts - ls : 0;
      break;
    }
    default: { /* 0, '&', '{' */
      node *nd = add_node(t, N_VAR, ts);
      if (!nd) return nomem(t, err, ts);
      nd->off = na;
      nd->len = nb - na;
      nd->bol = (unsigned char)bol;
      nd->escape = type == 0;
      break;
    }
    }
    pos = text_start = standalone ? le : te;
  }

  if (depth) {
    node *o = &t->nodes[open[depth - 1]];
    set_error(err, DDBGEN_MUSTACHE_EUNCLOSED_SECTION, src, o->pos, t->name,
              "section '%c" NAME_FMT "' is never closed", o->kind == N_SECTION ? '#' : '^',
              NAME_ARG(o->len, src + o->off));
    return DDBGEN_MUSTACHE_EUNCLOSED_SECTION;
  }
  return 0;
}

/* ---- rendering ---------------------------------------------------------- */

typedef struct {
  buf out;
  const ddbgen_mustache_opts *o;
  const json_t **stack; /* context stack, top = last */
  size_t sn, scap;
  int depth, max_depth; /* partial nesting */
  ddbgen_mustache_error *err;
} rstate;

static int push(rstate *r, const json_t *v) {
  if (r->sn == r->scap) {
    size_t cap = r->scap ? r->scap * 2 : 16;
    const json_t **p = realloc((void *)r->stack, cap * sizeof *p);
    if (!p) return -1;
    r->stack = p;
    r->scap = cap;
  }
  r->stack[r->sn++] = v;
  return 0;
}

static json_t *obj_getn(const json_t *obj, const char *key, size_t n) {
  if (!json_is_object(obj)) return NULL;
#if JANSSON_VERSION_HEX >= 0x020e00
  return json_object_getn(obj, key, n);
#else
  char tmp[256];
  if (n >= sizeof tmp || memchr(key, '\0', n)) return NULL;
  memcpy(tmp, key, n);
  tmp[n] = '\0';
  return json_object_get(obj, tmp);
#endif
}

/* Context lookup (spec): "." is the top of the stack; otherwise the first
 * dot-separated part is searched from the top of the stack down, and each
 * further part only inside the value found for the previous one. */
static const json_t *lookup(const rstate *r, const char *name, size_t len) {
  if (len == 1 && name[0] == '.') return r->sn ? r->stack[r->sn - 1] : NULL;
  const char *dot = memchr(name, '.', len);
  size_t first = dot ? (size_t)(dot - name) : len;
  const json_t *v = NULL;
  for (size_t i = r->sn; i-- > 0;) {
    v = obj_getn(r->stack[i], name, first);
    if (v) break;
  }
  size_t at = first;
  while (v && at < len) {
    at++; /* skip '.' */
    const char *seg = name + at;
    const char *nd = memchr(seg, '.', len - at);
    size_t sl = nd ? (size_t)(nd - seg) : len - at;
    v = obj_getn(v, seg, sl);
    at += sl;
  }
  return v;
}

static int falsey(const json_t *v) {
  return !v || json_is_null(v) || json_is_false(v) ||
         (json_is_array(v) && json_array_size(v) == 0) ||
         (json_is_string(v) && json_string_length(v) == 0);
}

static void put_escaped(buf *b, const char *s, size_t n, int escape) {
  if (!escape) { buf_put(b, s, n); return; }
  size_t i = 0;
  for (size_t k = 0; k < n; k++) {
    const char *rep;
    switch (s[k]) {
    case '&': rep = "&amp;"; break;
    case '"': rep = "&quot;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    default: continue;
    }
    buf_put(b, s + i, k - i);
    buf_puts(b, rep);
    i = k + 1;
  }
  buf_put(b, s + i, n - i);
}

/* The shortest %g form that reads back as the same double: 1.21 -> "1.21", 3.0 -> "3". */
static void fmt_real(char *out, size_t n, double d) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, n, "%.*g", prec, d);
    if (strtod(out, NULL) == d) return;
  }
}

static void emit_value(rstate *r, const json_t *v, int escape) {
  char tmp[64];
  switch (json_typeof(v)) {
  case JSON_STRING:
    put_escaped(&r->out, json_string_value(v), json_string_length(v), escape);
    break;
  case JSON_INTEGER:
    snprintf(tmp, sizeof tmp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    buf_puts(&r->out, tmp);
    break;
  case JSON_REAL:
    fmt_real(tmp, sizeof tmp, json_real_value(v));
    buf_puts(&r->out, tmp);
    break;
  case JSON_TRUE: buf_puts(&r->out, "true"); break;
  case JSON_FALSE: buf_puts(&r->out, "false"); break;
  case JSON_NULL: break;
  case JSON_OBJECT:
  case JSON_ARRAY: {
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s) { r->out.oom = 1; break; }
    put_escaped(&r->out, s, strlen(s), escape);
    free(s);
    break;
  }
  }
}

static int starts_eol(const char *s, size_t n, size_t i) {
  return i < n && (s[i] == '\n' || (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'));
}

/* Writes template text, indenting each non-empty line that starts in it. */
static void emit_text(rstate *r, const char *s, size_t n, int bol, const char *ind, size_t ind_len) {
  if (!ind_len) { buf_put(&r->out, s, n); return; }
  size_t i = 0;
  if (bol && !starts_eol(s, n, 0)) buf_put(&r->out, ind, ind_len);
  for (size_t k = 0; k + 1 < n; k++) {
    if (s[k] != '\n') continue;
    buf_put(&r->out, s + i, k + 1 - i);
    i = k + 1;
    if (!starts_eol(s, n, i)) buf_put(&r->out, ind, ind_len);
  }
  buf_put(&r->out, s + i, n - i);
}

static int render_partial(rstate *r, const tmpl_t *t, const node *nd, const char *ind,
                          size_t ind_len);

static int render(rstate *r, const tmpl_t *t, size_t b, size_t e, const char *ind, size_t ind_len) {
  for (size_t i = b; i < e; i++) {
    const node *nd = &t->nodes[i];
    const char *name = t->src + nd->off;
    if (nd->kind == N_TEXT) {
      emit_text(r, name, nd->len, nd->bol, ind, ind_len);
      continue;
    }
    if (nd->bol && ind_len) buf_put(&r->out, ind, ind_len);
    switch (nd->kind) {
    case N_VAR: {
      const json_t *v = lookup(r, name, nd->len);
      if (!v && r->o->strict_vars) {
        set_error(r->err, DDBGEN_MUSTACHE_EMISSING_VAR, t->src, nd->pos, t->name,
                  "'" NAME_FMT "' is not defined", NAME_ARG(nd->len, name));
        return DDBGEN_MUSTACHE_EMISSING_VAR;
      }
      if (v) emit_value(r, v, nd->escape && r->o->escape);
      break;
    }
    case N_SECTION: {
      const json_t *v = lookup(r, name, nd->len);
      if (!falsey(v)) {
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t k = 0; k < n; k++) {
          if (push(r, json_is_array(v) ? json_array_get(v, k) : v) != 0) {
            r->out.oom = 1;
            return DDBGEN_MUSTACHE_ENOMEM;
          }
          int rc = render(r, t, i + 1, nd->end, ind, ind_len);
          r->sn--;
          if (rc) return rc;
        }
      }
      i = nd->end - 1;
      break;
    }
    case N_INVERTED: {
      if (falsey(lookup(r, name, nd->len))) {
        int rc = render(r, t, i + 1, nd->end, ind, ind_len);
        if (rc) return rc;
      }
      i = nd->end - 1;
      break;
    }
    case N_PARTIAL: {
      int rc = render_partial(r, t, nd, ind, ind_len);
      if (rc) return rc;
      break;
    }
    case N_TEXT: break;
    }
    if (r->out.oom) return DDBGEN_MUSTACHE_ENOMEM;
  }
  return r->out.oom ? DDBGEN_MUSTACHE_ENOMEM : 0;
}

static int render_partial(rstate *r, const tmpl_t *t, const node *nd, const char *ind,
                          size_t ind_len) {
  const char *name = t->src + nd->off;
  if (r->depth >= r->max_depth) {
    set_error(r->err, DDBGEN_MUSTACHE_EPARTIAL_DEPTH, t->src, nd->pos, t->name,
              "partial '" NAME_FMT "' nested deeper than %d levels (recursive partial?)",
              NAME_ARG(nd->len, name), r->max_depth);
    return DDBGEN_MUSTACHE_EPARTIAL_DEPTH;
  }
  int rc = 0;
  char *pname = malloc(nd->len + 1);
  char *pind = NULL;
  tmpl_t pt = {0};
  if (!pname) goto oom;
  memcpy(pname, name, nd->len);
  pname[nd->len] = '\0';

  const char *psrc = r->o->partial ? r->o->partial(r->o->partial_ud, pname) : NULL;
  if (!psrc) {
    if (r->o->strict_partials) {
      set_error(r->err, DDBGEN_MUSTACHE_EMISSING_PARTIAL, t->src, nd->pos, t->name,
                "partial '" NAME_FMT "' not found", NAME_ARG(nd->len, name));
      rc = DDBGEN_MUSTACHE_EMISSING_PARTIAL;
    }
    goto done; /* spec: a missing partial renders as "" */
  }
  pt.src = psrc;
  pt.len = strlen(psrc);
  pt.name = pname;
  rc = parse(&pt, r->err);
  if (rc) goto done;

  /* Only a standalone partial tag indents the partial, by the outer
   * indentation plus its own; an inline one renders the partial as is. */
  size_t pind_len = 0;
  if (nd->standalone) {
    pind_len = ind_len + nd->ind_len;
    if (pind_len) {
      pind = malloc(pind_len);
      if (!pind) goto oom;
      if (ind_len) memcpy(pind, ind, ind_len);
      memcpy(pind + ind_len, t->src + nd->ind_off, nd->ind_len);
    }
  }
  r->depth++;
  rc = render(r, &pt, 0, pt.n, pind, pind_len);
  r->depth--;
  goto done;
oom:
  r->out.oom = 1;
  rc = DDBGEN_MUSTACHE_ENOMEM;
done:
  if (rc == DDBGEN_MUSTACHE_ENOMEM && r->err && r->err->code != DDBGEN_MUSTACHE_ENOMEM)
    set_error(r->err, rc, t->src, nd->pos, t->name, "out of memory");
  free(pt.nodes);
  free(pind);
  free(pname);
  return rc;
}

/* ---- public API --------------------------------------------------------- */

static void clear_error(ddbgen_mustache_error *err) {
  if (err) memset(err, 0, sizeof *err);
}

char *ddbgen_mustache_render_len(const char *tmpl, const json_t *ctx,
                                 const ddbgen_mustache_opts *opts, size_t *len_out,
                                 ddbgen_mustache_error *err) {
  static const ddbgen_mustache_opts defaults = DDBGEN_MUSTACHE_OPTS_INIT;
  if (!opts) opts = &defaults;
  const char *tname = opts->name ? opts->name : "<template>";
  clear_error(err);
  if (len_out) *len_out = 0;
  if (!tmpl) {
    set_error(err, DDBGEN_MUSTACHE_EINVAL, NULL, 0, tname, "template is NULL");
    return NULL;
  }
  tmpl_t t = {.src = tmpl, .len = strlen(tmpl), .name = tname};
  rstate r = {.o = opts, .err = err};
  r.max_depth = opts->max_partial_depth > 0 ? opts->max_partial_depth
                                            : DDBGEN_MUSTACHE_DEFAULT_PARTIAL_DEPTH;
  int rc = parse(&t, err);
  if (!rc && ctx && push(&r, ctx) != 0) rc = DDBGEN_MUSTACHE_ENOMEM;
  if (!rc) rc = render(&r, &t, 0, t.n, NULL, 0);
  if (!rc) {
    buf_put(&r.out, "", 0);
    if (!r.out.p) { /* empty output: still return a string */
      r.out.p = malloc(1);
      if (r.out.p) r.out.p[0] = '\0';
      else rc = DDBGEN_MUSTACHE_ENOMEM;
    }
  }
  free(t.nodes);
  free((void *)r.stack);
  if (rc) {
    if (rc == DDBGEN_MUSTACHE_ENOMEM && err && err->code != DDBGEN_MUSTACHE_ENOMEM)
      set_error(err, rc, NULL, 0, tname, "out of memory");
    free(r.out.p);
    return NULL;
  }
  if (len_out) *len_out = r.out.len;
  return r.out.p;
}

char *ddbgen_mustache_render(const char *tmpl, const json_t *ctx, const ddbgen_mustache_opts *opts,
                             ddbgen_mustache_error *err) {
  return ddbgen_mustache_render_len(tmpl, ctx, opts, NULL, err);
}

int ddbgen_mustache_check(const char *tmpl, const ddbgen_mustache_opts *opts,
                          ddbgen_mustache_error *err) {
  const char *tname = opts && opts->name ? opts->name : "<template>";
  clear_error(err);
  if (!tmpl) {
    set_error(err, DDBGEN_MUSTACHE_EINVAL, NULL, 0, tname, "template is NULL");
    return DDBGEN_MUSTACHE_EINVAL;
  }
  tmpl_t t = {.src = tmpl, .len = strlen(tmpl), .name = tname};
  int rc = parse(&t, err);
  free(t.nodes);
  return rc;
}
