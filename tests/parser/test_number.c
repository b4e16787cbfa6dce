/* tests/parser/test_number.c: exact conversion of timestamp text to int64 ns (number.c). Every
 * expected value is worked out by hand from the decimal text. The fast paths (numfast.h) against
 * the full conversions, and doubles against strtod_l. */
#include "ks_test.h"
#include "parser/numfast.h"

static void expect(const char *s, int rc, int64_t ns)
{
    int64_t v = 12345;
    int r = ks_parse_us_to_ns(s, strlen(s), &v);
    if (r != rc)
        fail_msg("'%s': status %d, expected %d", s, r, rc);
    if (rc >= 0 && v != ns)
        fail_msg("'%s': %lld ns, expected %lld", s, (long long)v, (long long)ns);
}

static void integer_microseconds(void **state)
{
    (void)state;
    expect("0", KS_NUM_EXACT, 0);
    expect("1", KS_NUM_EXACT, 1000);
    expect("1669329643132548", KS_NUM_EXACT, 1669329643132548000LL);
    expect("-5", KS_NUM_EXACT, -5000);
}

static void three_fraction_digits(void **state)
{
    (void)state;
    expect("123.456", KS_NUM_EXACT, 123456);
    expect("0.001", KS_NUM_EXACT, 1);
    expect("0.000", KS_NUM_EXACT, 0);
    /* 19 significant digits: exact, where a double would not be */
    expect("1695835535123.456", KS_NUM_EXACT, 1695835535123456LL);
    expect("9223372036854775.807", KS_NUM_EXACT, INT64_MAX);
    expect("-9223372036854775.808", KS_NUM_EXACT, INT64_MIN);
}

static void short_fractions_are_padded(void **state)
{
    (void)state;
    expect("123.5", KS_NUM_EXACT, 123500); /* the 2024 unpadded form reads as 123.500 */
    expect("2.25", KS_NUM_EXACT, 2250);
}

static void long_fractions_round_half_away(void **state)
{
    (void)state;
    expect("102.95699890136719", KS_NUM_ROUNDED, 102957);
    expect("1.0004", KS_NUM_ROUNDED, 1000);
    expect("1.0005", KS_NUM_ROUNDED, 1001);
    expect("-1.0005", KS_NUM_ROUNDED, -1001);
    expect("1.00049999999999999999999", KS_NUM_ROUNDED, 1000);
    expect("1.0000000", KS_NUM_EXACT, 1000); /* trailing zeros lose nothing */
    expect("0.0004", KS_NUM_ROUNDED, 0);
    expect("0.0005", KS_NUM_ROUNDED, 1);
}

static void exponents_shift_exactly(void **state)
{
    (void)state;
    expect("1e3", KS_NUM_EXACT, 1000000);
    expect("1.5E2", KS_NUM_EXACT, 150000);
    expect("1.695835535123456e12", KS_NUM_EXACT, 1695835535123456LL);
    expect("12345e-3", KS_NUM_EXACT, 12345);
    expect("12345e-4", KS_NUM_ROUNDED, 1235);
    expect("5e-4", KS_NUM_ROUNDED, 1);
    expect("0e999999", KS_NUM_EXACT, 0);
    expect("1e-999999", KS_NUM_ROUNDED, 0);
}

static void out_of_range_is_an_error(void **state)
{
    (void)state;
    expect("9223372036854775.808", KS_NUM_RANGE, 0);
    expect("1e20", KS_NUM_RANGE, 0);
    expect("99999999999999999999999", KS_NUM_RANGE, 0);
    expect("9223372036854775.8075", KS_NUM_RANGE, 0); /* rounds above INT64_MAX */
}

static void syntax_errors(void **state)
{
    (void)state;
    expect("", KS_NUM_SYNTAX, 0);
    expect("-", KS_NUM_SYNTAX, 0);
    expect("1.", KS_NUM_SYNTAX, 0);
    expect(".5", KS_NUM_SYNTAX, 0);
    expect("1e", KS_NUM_SYNTAX, 0);
    expect("inf", KS_NUM_SYNTAX, 0);
    expect("N/A", KS_NUM_SYNTAX, 0);
    expect("12 ", KS_NUM_SYNTAX, 0);
    expect("0x10", KS_NUM_SYNTAX, 0);
}

static void int64_parsing(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(ks_parse_int64("42", 2, &v), KS_NUM_EXACT);
    assert_int_equal(v, 42);
    assert_int_equal(ks_parse_int64("-7", 2, &v), KS_NUM_EXACT);
    assert_int_equal(v, -7);
    assert_int_equal(ks_parse_int64("18446744073709551615", 20, &v), KS_NUM_RANGE);
    assert_int_equal(v, INT64_MAX);
    assert_int_equal(ks_parse_int64("1.5", 3, &v), KS_NUM_SYNTAX);
    assert_int_equal(ks_parse_int64("", 0, &v), KS_NUM_SYNTAX);
}

/* Case k of a comparison: the fixed text k while there are fixed texts (1), else 0 after one
 * xorshift step of *x, from which the caller makes a text of its own. */
static int fixed_case(size_t k, const char *const *fixed, size_t nfixed, uint64_t *x, const char **s, size_t *len)
{
    if (k < nfixed) {
        *s = fixed[k];
        *len = strlen(*s);
        return 1;
    }
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return 0;
}

/* The fast paths of parser/numfast.h give exactly the full parsers' results: on boundary values
 * and on a million generated number texts (well-formed and not). */
static void fast_paths_agree_with_full_parsers(void **state)
{
    (void)state;
    static const char *const fixed[] = {
        "0", "-0", "00", "007", "-", "", ".", "1.", ".5", "1.5", "-1.5", "1.123", "1.1234", "1e3",
        "9223372036854775", "9223372036854775.807", "9223372036854775.808", "-9223372036854775.808",
        "-9223372036854775.809", "9223372036854776", "9999999999999999", "9999999999999999.999",
        "-9999999999999999", "99999999999999999", "999999999999999999", "-999999999999999999",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1623142623460111",
        "1623142623460111.5", "12 ", " 12", "1-2", "--1", "+1", "1.2.3", "0.000", "-0.001",
    };
    uint64_t x = 0x2545F4914F6CDD1DULL;
    char buf[64];
    for (size_t k = 0; k < 1000000 + sizeof fixed / sizeof *fixed; k++) {
        const char *s;
        size_t len;
        if (!fixed_case(k, fixed, sizeof fixed / sizeof *fixed, &x, &s, &len)) {
            len = 0;
            if (x & 1)
                buf[len++] = '-';
            int nint = (int)((x >> 1) % 21), nfrac = (int)((x >> 6) % 7) - 1;
            for (int i = 0; i < nint; i++)
                buf[len++] = (char)('0' + (x >> (11 + i % 40)) % 10);
            if (nfrac >= 0) {
                buf[len++] = '.';
                for (int i = 0; i < nfrac; i++)
                    buf[len++] = (char)('0' + (x >> (13 + i)) % 10);
            }
            if ((x >> 50) % 16 == 0)
                buf[(x >> 54) % (len + 1)] = "e+ x.-0"[(x >> 58) % 7]; /* damage one byte */
            s = buf;
        }
        int64_t a = 0, b = 0;
        int ra = ks_parse_int64(s, len, &a), rb = int64_of(s, len, &b);
        if (ra != rb || a != b)
            fail_msg("int64 \"%.*s\": %d %lld vs fast %d %lld", (int)len, s, ra, (long long)a, rb, (long long)b);
        a = b = 0;
        ra = ks_parse_us_to_ns(s, len, &a);
        rb = us_to_ns(s, len, &b);
        if (ra != rb || a != b)
            fail_msg("us \"%.*s\": %d %lld vs fast %d %lld", (int)len, s, ra, (long long)a, rb, (long long)b);
    }
}

/* double_of (parser/numfast.h) gives strtod_l's double bit for bit: on boundary values (2^53, 22
 * fraction digits, 19 digits, -0) and on a million generated number texts with up to 25 digits
 * before and after the point and an exponent now and then. */
static void doubles_agree_with_strtod(void **state)
{
    (void)state;
    static const char *const fixed[] = {
        "0", "-0", "0.0", "-0.0", "1", "0.1", "0.3", "2.5", "100.0", "9007199254740992", "9007199254740993",
        "900719925474099.2", "900719925474099.3", "0.9007199254740992", "1.7976931348623157", "123456789012345678",
        "1234567890123456789", "12345678901234567890", "0.0000000000000000000001", "0.00000000000000000000001",
        "1.0000000000000000000001", "4.35", "99.999999", "1e5", "1.5e-3", "-2.5E+2", "66.6666666666666667",
    };
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    assert_non_null(c);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    char buf[64];
    for (size_t k = 0; k < 1000000 + sizeof fixed / sizeof *fixed; k++) {
        const char *s;
        size_t len;
        if (!fixed_case(k, fixed, sizeof fixed / sizeof *fixed, &x, &s, &len)) {
            uint64_t y = x * 0x2545F4914F6CDD1DULL;
            len = 0;
            if (x & 1)
                buf[len++] = '-';
            int nint = 1 + (int)((x >> 1) % 25), nfrac = (int)((x >> 6) % 27) - 2;
            for (int i = 0; i < nint; i++, y = y * 6364136223846793005ULL + 1442695040888963407ULL)
                buf[len++] = (char)('0' + (i == 0 && nint > 1 && (x >> 12) % 4 ? 1 + (y >> 33) % 9 : (y >> 33) % 10));
            if (nfrac >= 0) {
                buf[len++] = '.';
                for (int i = 0; i < nfrac; i++, y = y * 6364136223846793005ULL + 1442695040888963407ULL)
                    buf[len++] = (char)('0' + (y >> 33) % 10);
            }
            if ((x >> 40) % 8 == 0)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "e%d", (int)((x >> 44) % 61) - 30);
            s = buf;
        }
        char z[64];
        memcpy(z, s, len);
        z[len] = 0;
        double want = strtod_l(z, NULL, c), got = double_of(s, len, c);
        if (memcmp(&want, &got, sizeof want))
            fail_msg("\"%s\": strtod %.17g, fast %.17g", z, want, got);
    }
    freelocale(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer_microseconds),
        cmocka_unit_test(three_fraction_digits),
        cmocka_unit_test(short_fractions_are_padded),
        cmocka_unit_test(long_fractions_round_half_away),
        cmocka_unit_test(exponents_shift_exactly),
        cmocka_unit_test(out_of_range_is_an_error),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(int64_parsing),
        cmocka_unit_test(fast_paths_agree_with_full_parsers),
        cmocka_unit_test(doubles_agree_with_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
