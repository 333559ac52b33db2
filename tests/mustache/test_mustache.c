/* test_mustache.c — the mustache renderer against the official spec files
 * (DDB_SHARED_DIR/conformance/mustache/<module>.json, skipped when absent) and our
 * own cases: escaping off, every error kind with its line:col, the partial
 * depth limit, C-like generator output, {{.}} over strings, number formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "mustache.h"

#ifndef DDB_DEFAULT_SHARED_DIR
#define DDB_DEFAULT_SHARED_DIR "../shared"
#endif

/* ---- helpers ------------------------------------------------------------ */

/* Partial loader over a JSON object {name: source}. */
static const char *json_partials(void *ud, const char *name) {
  json_t *v = json_object_get((json_t *)ud, name);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static json_t *parse_json(const char *text) {
  json_error_t je;
  json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
  if (!v) fail_msg("bad test JSON at %d:%d: %s", je.line, je.column, je.text);
  return v;
}

/* Renders with the given options and checks the output. */
static void expect_render(const char *tmpl, const char *data, const char *partials, int escape,
                          const char *expected) {
  json_t *ctx = parse_json(data);
  json_t *parts = partials ? parse_json(partials) : json_object();
  ddbgen_mustache_opts o = DDBGEN_MUSTACHE_OPTS_INIT;
  o.escape = escape;
  o.partial = json_partials;
  o.partial_ud = parts;
  ddbgen_mustache_error err;
  size_t len = 0;
  char *out = ddbgen_mustache_render_len(tmpl, ctx, &o, &len, &err);
  if (!out) fail_msg("render failed: %s:%d:%d: %s", err.source, err.line, err.column, err.text);
  assert_string_equal(out, expected);
  assert_int_equal(len, strlen(out));
  free(out);
  json_decref(ctx);
  json_decref(parts);
}

/* Renders and expects failure with the given code, position and message part. */
static void expect_error(const char *tmpl, const char *data, const char *partials,
                         const ddbgen_mustache_opts *base, int code, const char *source, int line,
                         int column, const char *text_part) {
  json_t *ctx = parse_json(data);
  json_t *parts = partials ? parse_json(partials) : json_object();
  ddbgen_mustache_opts o = DDBGEN_MUSTACHE_OPTS_INIT;
  if (base) o = *base;
  o.partial = json_partials;
  o.partial_ud = parts;
  ddbgen_mustache_error err;
  char *out = ddbgen_mustache_render(tmpl, ctx, &o, &err);
  if (out) fail_msg("expected error %d, rendered \"%s\"", code, out);
  printf("    expected error: %s:%d:%d: error: %s\n", err.source, err.line, err.column, err.text);
  assert_int_equal(err.code, code);
  assert_string_equal(err.source, source);
  assert_int_equal(err.line, line);
  assert_int_equal(err.column, column);
  if (!strstr(err.text, text_part)) fail_msg("message \"%s\" lacks \"%s\"", err.text, text_part);
  assert_string_not_equal(ddbgen_mustache_strerror(code), "unknown mustache error");
  json_decref(ctx);
  json_decref(parts);
}

/* ---- official spec files ------------------------------------------------ */

static const char *shared_dir(void) {
  const char *d = getenv("DDB_SHARED_DIR");
  return d && *d ? d : DDB_DEFAULT_SHARED_DIR;
}

static void run_spec(const char *module) {
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/conformance/mustache", shared_dir());
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("    SKIP: mustache spec folder %s not found (set DDB_SHARED_DIR to the shared/ "
           "folder that holds conformance/mustache/*.json)\n",
           dir);
    skip();
  }
  snprintf(path, sizeof path, "%s/%s.json", dir, module);
  json_error_t je;
  json_t *spec = json_load_file(path, 0, &je);
  if (!spec) fail_msg("cannot load %s: %d:%d: %s", path, je.line, je.column, je.text);
  json_t *tests = json_object_get(spec, "tests");
  assert_true(json_is_array(tests));
  assert_true(json_array_size(tests) > 0);

  size_t i, failures = 0;
  json_t *tc;
  json_array_foreach(tests, i, tc) {
    const char *name = json_string_value(json_object_get(tc, "name"));
    const char *tmpl = json_string_value(json_object_get(tc, "template"));
    const char *expected = json_string_value(json_object_get(tc, "expected"));
    json_t *data = json_object_get(tc, "data");
    json_t *partials = json_object_get(tc, "partials");
    assert_non_null(name);
    assert_non_null(tmpl);
    assert_non_null(expected);

    ddbgen_mustache_opts o = DDBGEN_MUSTACHE_OPTS_INIT; /* escaping on, as the spec needs */
    o.partial = json_partials;
    o.partial_ud = partials; /* json_object_get(NULL, ...) is NULL: no partials */
    ddbgen_mustache_error err;
    char *out = ddbgen_mustache_render(tmpl, data, &o, &err);
    if (!out) {
      printf("    FAIL %s / %s: error %s:%d:%d: %s\n", module, name, err.source, err.line,
             err.column, err.text);
      failures++;
    } else if (strcmp(out, expected) != 0) {
      printf("    FAIL %s / %s\n      template: %s\n      expected: [%s]\n      got:      [%s]\n",
             module, name, tmpl, expected, out);
      failures++;
    }
    free(out);
  }
  printf("    %s: %zu/%zu spec tests pass\n", module, json_array_size(tests) - failures,
         json_array_size(tests));
  json_decref(spec);
  assert_int_equal(failures, 0);
}

static void spec_comments(void **state) { (void)state; run_spec("comments"); }
static void spec_delimiters(void **state) { (void)state; run_spec("delimiters"); }
static void spec_interpolation(void **state) { (void)state; run_spec("interpolation"); }
static void spec_inverted(void **state) { (void)state; run_spec("inverted"); }
static void spec_partials(void **state) { (void)state; run_spec("partials"); }
static void spec_sections(void **state) { (void)state; run_spec("sections"); }

/* ---- our own cases ------------------------------------------------------ */

static void escaping_off(void **state) {
  (void)state;
  const char *data = "{\"x\": \"a < b && c > \\\"d\\\"\", \"l\": [\"<\", \"&\"]}";
  expect_render("{{x}}|{{{x}}}|{{&x}}|{{#l}}{{.}}{{/l}}", data, NULL, 0,
                "a < b && c > \"d\"|a < b && c > \"d\"|a < b && c > \"d\"|<&");
  expect_render("{{x}}|{{{x}}}|{{&x}}|{{#l}}{{.}}{{/l}}", data, NULL, 1,
                "a &lt; b &amp;&amp; c &gt; &quot;d&quot;|a < b && c > \"d\"|a < b && c > \"d\"|"
                "&lt;&amp;");
}

static void implicit_iterator_strings(void **state) {
  (void)state;
  const char *data = "{\"names\": [\"id\", \"age\", \"a<b\"], \"empty\": [],"
                     " \"grid\": [[\"a\", \"b\"], [\"c\"]]}";
  expect_render("{{#names}}[{{.}}]{{/names}}", data, NULL, 0, "[id][age][a<b]");
  expect_render("{{#names}}[{{.}}]{{/names}}", data, NULL, 1, "[id][age][a&lt;b]");
  expect_render("{{#empty}}x{{.}}{{/empty}}{{^empty}}none{{/empty}}", data, NULL, 0, "none");
  expect_render("{{#grid}}({{#.}}{{.}}{{/.}}){{/grid}}", data, NULL, 0, "(ab)(c)");
  /* Root-level array of strings, one per line, standalone section tags. */
  expect_render("{{#.}}\n- {{.}}\n{{/.}}\n", "[\"x\", \"y\"]", NULL, 0, "- x\n- y\n");
}

static void c_code_generation(void **state) {
  (void)state;
  const char *tmpl =
      "/* Generated by ddbgen {{version}} from {{source}}. DO NOT EDIT. */\n"
      "#ifndef {{guard}}\n"
      "#define {{guard}}\n"
      "\n"
      "{{#entities}}\n"
      "typedef struct {{name}} {\n"
      "{{#fields}}\n"
      "  {{ctype}} {{name}}{{#dims}}[{{.}}]{{/dims}};\n"
      "{{/fields}}\n"
      "} {{cname}};\n"
      "\n"
      "static const ddb_field {{name}}_fields[{{nfields}}] = {\n"
      "{{#fields}}\n"
      "  {\"{{attr}}\", offsetof({{cname}}, {{name}}), {{type}}}{{^last}},{{/last}}\n"
      "{{/fields}}\n"
      "};\n"
      "\n"
      "{{#has_key}}\n"
      "int {{name}}_key(const {{cname}} *x, char *out) {\n"
      "  {{>key_body}}\n"
      "}\n"
      "{{/has_key}}\n"
      "{{/entities}}\n"
      "#endif /* {{guard}} */\n";
  const char *partials = "{\"key_body\": \"size_t n = 0;\\n"
                         "{{#key}}\\n"
                         "n += ddb_put_{{kind}}(out + n, x->{{field}});\\n"
                         "{{/key}}\\n"
                         "\\n"
                         "return (int)n;\\n\"}";
  const char *data =
      "{\"version\": \"0.1.0\", \"source\": \"schemas/user.h\", \"guard\": \"USER_DDB_H\","
      " \"entities\": ["
      "  {\"name\": \"user\", \"cname\": \"user_t\", \"nfields\": 2, \"has_key\": true,"
      "   \"fields\": ["
      "     {\"ctype\": \"char\", \"name\": \"id\", \"dims\": [64], \"attr\": \"id\","
      "      \"type\": \"DDB_S\", \"last\": false},"
      "     {\"ctype\": \"int64_t\", \"name\": \"age\", \"dims\": [], \"attr\": \"age\","
      "      \"type\": \"DDB_N\", \"last\": true}],"
      "   \"key\": [{\"kind\": \"s\", \"field\": \"id\"}, {\"kind\": \"n\", \"field\": \"age\"}]},"
      "  {\"name\": \"order\", \"cname\": \"order_t\", \"nfields\": 1, \"has_key\": false,"
      "   \"fields\": ["
      "     {\"ctype\": \"double\", \"name\": \"total\", \"dims\": [2, 3], \"attr\": \"t<>&\","
      "      \"type\": \"DDB_N\", \"last\": true}]}]}";
  const char *expected = "/* Generated by ddbgen 0.1.0 from schemas/user.h. DO NOT EDIT. */\n"
                         "#ifndef USER_DDB_H\n"
                         "#define USER_DDB_H\n"
                         "\n"
                         "typedef struct user {\n"
                         "  char id[64];\n"
                         "  int64_t age;\n"
                         "} user_t;\n"
                         "\n"
                         "static const ddb_field user_fields[2] = {\n"
                         "  {\"id\", offsetof(user_t, id), DDB_S},\n"
                         "  {\"age\", offsetof(user_t, age), DDB_N}\n"
                         "};\n"
                         "\n"
                         "int user_key(const user_t *x, char *out) {\n"
                         "  size_t n = 0;\n"
                         "  n += ddb_put_s(out + n, x->id);\n"
                         "  n += ddb_put_n(out + n, x->age);\n"
                         "\n" /* empty partial line: no trailing indentation */
                         "  return (int)n;\n"
                         "}\n"
                         "typedef struct order {\n"
                         "  double total[2][3];\n"
                         "} order_t;\n"
                         "\n"
                         "static const ddb_field order_fields[1] = {\n"
                         "  {\"t<>&\", offsetof(order_t, total), DDB_N}\n"
                         "};\n"
                         "\n"
                         "#endif /* USER_DDB_H */\n";
  expect_render(tmpl, data, partials, 0, expected);
}

static void partial_indentation(void **state) {
  (void)state;
  /* Nested standalone partials accumulate indentation; inline ones add none. */
  expect_render("  {{>p}}\n", "{}", "{\"p\": \"{\\n  {{>q}}\\n}\\n\", \"q\": \"s;\\nt;\\n\"}", 0,
                "  {\n    s;\n    t;\n  }\n");
  expect_render("x {{>q}}.\n", "{}", "{\"q\": \"s;\\nt;\"}", 0, "x s;\nt;.\n");
  /* Empty lines stay empty; CRLF line endings are kept. */
  expect_render("x\n  {{>p}}\ny", "{}", "{\"p\": \"a\\n\\nb\\r\\n\\r\\nc\\n\"}", 0,
                "x\n  a\n\n  b\r\n\r\n  c\ny");
  /* Interpolated multi-line values are not re-indented (spec). */
  expect_render("\t{{>p}}\n", "{\"v\": \"1\\n2\"}", "{\"p\": \"<{{v}}>\\n\"}", 0, "\t<1\n2>\n");
}

static void values_and_truthiness(void **state) {
  (void)state;
  expect_render("{{i}} {{big}} {{r}} {{p}} {{e}} {{neg}} {{t}} {{f}} [{{n}}] {{{o}}}",
                "{\"i\": -42, \"big\": 9007199254740993, \"r\": 3.0, \"p\": 0.1, \"e\": 1e300,"
                " \"neg\": -2.5, \"t\": true, \"f\": false, \"n\": null, \"o\": {\"a\": [1, \"x\"]}}",
                NULL, 1, "-42 9007199254740993 3 0.1 1e+300 -2.5 true false [] {\"a\":[1,\"x\"]}");
  /* "" is falsey; 0 and {} are truthy; a truthy scalar is pushed as {{.}}. */
  expect_render("{{#e}}E{{/e}}{{^e}}e{{/e}}{{#z}}Z{{.}}{{/z}}{{#o}}O{{/o}}{{^a}}a{{/a}}{{^m}}m{{/m}}",
                "{\"e\": \"\", \"z\": 0, \"o\": {}, \"a\": []}", NULL, 1, "eZ0Oam");
  /* Objects push a context; lookups fall through it to the parents. */
  expect_render("{{#o}}{{x}}-{{y}}{{/o}}", "{\"o\": {\"x\": 1}, \"y\": 2}", NULL, 1, "1-2");
}

static void api_edges(void **state) {
  (void)state;
  ddbgen_mustache_error err;
  /* NULL opts = spec defaults (escaping on); NULL ctx = empty context. */
  char *out = ddbgen_mustache_render("{{x}}-{{.}}-<&>", NULL, NULL, &err);
  assert_non_null(out);
  assert_string_equal(out, "--<&>");
  free(out);
  /* Empty output is "", not NULL; err may be NULL. */
  out = ddbgen_mustache_render("{{! nothing }}", NULL, NULL, NULL);
  assert_non_null(out);
  assert_string_equal(out, "");
  free(out);
  /* NULL template. */
  assert_null(ddbgen_mustache_render(NULL, NULL, NULL, &err));
  assert_int_equal(err.code, DDBGEN_MUSTACHE_EINVAL);
  /* Success clears a stale error. */
  out = ddbgen_mustache_render("ok", NULL, NULL, &err);
  assert_int_equal(err.code, 0);
  free(out);
  /* check() parses only. */
  ddbgen_mustache_opts o = DDBGEN_MUSTACHE_OPTS_INIT;
  o.name = "templates/entity.c.mustache";
  assert_int_equal(ddbgen_mustache_check("{{#a}}{{>missing}}{{/a}}", &o, &err), 0);
  assert_int_equal(ddbgen_mustache_check("\n\n  {{#a}}", &o, &err),
                   DDBGEN_MUSTACHE_EUNCLOSED_SECTION);
  assert_string_equal(err.source, "templates/entity.c.mustache");
  assert_int_equal(err.line, 3);
  assert_int_equal(err.column, 3);
  /* Syntax errors are reported even in sections that never render. */
  assert_null(ddbgen_mustache_render("{{#no}}{{=x=}}{{/no}}", NULL, NULL, &err));
  assert_int_equal(err.code, DDBGEN_MUSTACHE_EBAD_DELIMITER);
  assert_string_equal(ddbgen_mustache_strerror(12345), "unknown mustache error");
}

static void errors_with_positions(void **state) {
  (void)state;
  ddbgen_mustache_opts named = DDBGEN_MUSTACHE_OPTS_INIT;
  named.name = "t.mustache";

  /* Unclosed tag, including a triple mustache missing one brace. */
  expect_error("line1\n  {{name", "{}", NULL, NULL, DDBGEN_MUSTACHE_EUNCLOSED_TAG, "<template>", 2,
               3, "unclosed tag");
  expect_error("ab {{{raw}}", "{}", NULL, &named, DDBGEN_MUSTACHE_EUNCLOSED_TAG, "t.mustache", 1,
               4, "'}}}'");
  expect_error("{{=<% %>=}}\n<%x", "{}", NULL, NULL, DDBGEN_MUSTACHE_EUNCLOSED_TAG, "<template>", 2,
               1, "'%>'");
  /* Unclosed section: points at the innermost open tag. */
  expect_error("a\n{{#outer}}\n {{^inner}}x\n", "{}", NULL, &named,
               DDBGEN_MUSTACHE_EUNCLOSED_SECTION, "t.mustache", 3, 2, "'^inner' is never closed");
  /* Mismatched close tag, and a close tag with nothing open. */
  expect_error("{{#a}}\n  {{/b}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EMISMATCHED_CLOSE, "<template>",
               2, 3, "'/b' does not match '#a' opened at 1:1");
  expect_error("x {{/a}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EMISMATCHED_CLOSE, "<template>", 1, 3,
               "without an open section");
  /* Bad set-delimiter tags. */
  expect_error("ok\n{{=<% %>}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EBAD_DELIMITER, "<template>", 2,
               1, "set-delimiter");
  expect_error("{{=a b c=}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EBAD_DELIMITER, "<template>", 1, 1,
               "set-delimiter");
  expect_error("  {{=<%%>=}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EBAD_DELIMITER, "<template>", 1, 3,
               "set-delimiter");
  expect_error("{{= =}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EBAD_DELIMITER, "<template>", 1, 1,
               "set-delimiter");
  expect_error("{{=<= =>=}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EBAD_DELIMITER, "<template>", 1, 1,
               "set-delimiter");
  /* Empty names. */
  expect_error("x\n\n{{ }}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EEMPTY_TAG, "<template>", 3, 1,
               "no name");
  expect_error("{{#}}{{/}}", "{}", NULL, NULL, DDBGEN_MUSTACHE_EEMPTY_TAG, "<template>", 1, 1,
               "no name");
  /* Errors inside a partial name the partial and its own line:col. */
  expect_error("top\n{{>p}}", "{}", "{\"p\": \"ok\\n {{#x}}\"}", &named,
               DDBGEN_MUSTACHE_EUNCLOSED_SECTION, "p", 2, 2, "'#x'");
  /* Strict modes. */
  ddbgen_mustache_opts strict = named;
  strict.strict_partials = 1;
  strict.strict_vars = 1;
  expect_error("a\n  b {{>nope}}", "{}", NULL, &strict, DDBGEN_MUSTACHE_EMISSING_PARTIAL,
               "t.mustache", 2, 5, "'nope' not found");
  expect_error("{{#o}}\n{{a.b}}{{/o}}", "{\"o\": {\"a\": {}}}", NULL, &strict,
               DDBGEN_MUSTACHE_EMISSING_VAR, "t.mustache", 2, 1, "'a.b' is not defined");
  /* Sections nested beyond the limit. */
  size_t depth = DDBGEN_MUSTACHE_MAX_NESTING + 1;
  char *deep = malloc(depth * 12 + 2);
  assert_non_null(deep);
  char *p = deep;
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "{{#a}}");
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "{{/a}}");
  expect_error(deep, "{}", NULL, NULL, DDBGEN_MUSTACHE_ENESTING, "<template>", 1,
               1 + 6 * DDBGEN_MUSTACHE_MAX_NESTING, "nested deeper");
  /* ... while exactly the limit is fine. */
  p = deep;
  for (size_t i = 0; i + 1 < depth; i++) p += sprintf(p, "{{#a}}");
  p += sprintf(p, "x");
  for (size_t i = 0; i + 1 < depth; i++) p += sprintf(p, "{{/a}}");
  expect_render(deep, "{\"a\": true}", NULL, 0, "x");
  free(deep);
}

static void partial_recursion_limit(void **state) {
  (void)state;
  /* A partial that includes itself unconditionally hits the default limit. */
  expect_error("{{>node}}", "{}", "{\"node\": \"x{{>node}}\"}", NULL,
               DDBGEN_MUSTACHE_EPARTIAL_DEPTH, "node", 1, 2, "recursive partial");
  /* Two partials including each other. */
  expect_error("{{>a}}", "{}", "{\"a\": \"{{>b}}\", \"b\": \"\\n {{>a}}\"}", NULL,
               DDBGEN_MUSTACHE_EPARTIAL_DEPTH, "b", 2, 2, "32 levels");
  /* Data-driven recursion within a custom limit: 3 levels fit, 4 do not. The
   * innermost "c" is null: a missing one would be found in the parent. */
  ddbgen_mustache_opts o = DDBGEN_MUSTACHE_OPTS_INIT;
  o.max_partial_depth = 3;
  const char *parts = "{\"t\": \"{{v}}{{#c}}({{>t}}){{/c}}\"}";
  json_t *ctx = parse_json("{\"v\": 1, \"c\": {\"v\": 2, \"c\": {\"v\": 3, \"c\": null}}}");
  json_t *pj = parse_json(parts);
  o.partial = json_partials;
  o.partial_ud = pj;
  ddbgen_mustache_error err;
  char *out = ddbgen_mustache_render("{{>t}}", ctx, &o, &err);
  assert_non_null(out);
  assert_string_equal(out, "1(2(3))");
  free(out);
  json_decref(ctx);
  ctx = parse_json("{\"v\": 1, \"c\": {\"v\": 2, \"c\": {\"v\": 3, \"c\": {\"v\": 4, \"c\": null}}}}");
  assert_null(ddbgen_mustache_render("{{>t}}", ctx, &o, &err));
  assert_int_equal(err.code, DDBGEN_MUSTACHE_EPARTIAL_DEPTH);
  assert_string_equal(err.source, "t");
  assert_int_equal(err.line, 1);
  assert_int_equal(err.column, 13);
  json_decref(ctx);
  json_decref(pj);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spec_comments),
      cmocka_unit_test(spec_delimiters),
      cmocka_unit_test(spec_interpolation),
      cmocka_unit_test(spec_inverted),
      cmocka_unit_test(spec_partials),
      cmocka_unit_test(spec_sections),
      cmocka_unit_test(escaping_off),
      cmocka_unit_test(implicit_iterator_strings),
      cmocka_unit_test(c_code_generation),
      cmocka_unit_test(partial_indentation),
      cmocka_unit_test(values_and_truthiness),
      cmocka_unit_test(api_edges),
      cmocka_unit_test(errors_with_positions),
      cmocka_unit_test(partial_recursion_limit),
  };
  return cmocka_run_group_tests_name("mustache", tests, NULL, NULL);
}
