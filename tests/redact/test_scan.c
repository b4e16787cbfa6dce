/* tests/redact/test_scan.c: every string scanner on what it must find, what it must leave
 * (near misses, C++ scopes, version pins, file names), and idempotence: what the scanners
 * write is never rewritten by a second scan. */
#include <unistd.h>

#include "rd_test.h"

static ks_redactor *rd;

static int setup(void **state)
{
    (void)state;
    rd = rd_new();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ks_redactor_free(rd);
    return 0;
}

/* s must become something without `gone`, holding `kept`, counted under rule; and scanning
 * the result again changes nothing */
static char *expect(const char *s, const char *rule, const char *gone, const char *kept)
{
    uint64_t before = ks_redact_count(rd, rule);
    char *r = rd_scan(rd, s);
    if (!strcmp(r, s))
        fail_msg("'%s' unchanged (rule %s)", s, rule);
    if (gone)
        assert_not_contains(r, gone);
    if (kept)
        assert_contains(r, kept);
    if (ks_redact_count(rd, rule) <= before)
        fail_msg("'%s' -> '%s' not counted under %s", s, r, rule);
    char *again = rd_scan(rd, r);
    if (strcmp(again, r))
        fail_msg("not idempotent: '%s' -> '%s' -> '%s'", s, r, again);
    free(again);
    return r;
}

static void expect_free(const char *s, const char *rule, const char *gone, const char *kept)
{
    free(expect(s, rule, gone, kept));
}

static void unchanged(const char *s)
{
    char *r = rd_scan(rd, s);
    if (strcmp(r, s))
        fail_msg("'%s' was rewritten to '%s'", s, r);
    free(r);
}

static void test_secrets(void **state)
{
    (void)state;
    expect_free("key AKIAQ3EGUIT7ZKXBVN5W here", "aws-access-token", "AKIAQ3EGUIT7ZKXBVN5W",
                "key [REDACTED:aws-access-token] here");
    expect_free("ghp_Zx9Qw3Er7Ty1Ui5Op0As2Df4Gh6Jk8Lz1Xc3V", "github-token", "Zx9Qw3Er7Ty1",
                "[REDACTED:github-token]");
    expect_free("glpat-Ab3De5Gh7Jk9Lm1Np3Qr", "gitlab-pat", "Ab3De5", NULL);
    expect_free("HF=hf_KsSyntheticNotARealToken0123456789;", "huggingface-token", "Synthetic",
                "HF=[REDACTED:huggingface-token];");
    expect_free("xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack-token",
                "AbCdEf", NULL);
    expect_free("post to https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/abcdefghijklmnopqrstuvwx",
                "slack-webhook", "T0ABCDEFG", "post to ");
    expect_free("Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6"
                "IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "jwt", "SflKxwRJ", "Bearer [REDACTED:jwt]");
    expect_free("sk-proj-Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz", "openai-key", "Ab3De5", NULL);
    expect_free("sk-ant-api03-aaaaaaaaaaBBBBBBBBBBccccccccccDDDDDDDDDDeeeeeeeeeeFFFFFFFFFFgggggggggg"
                "HHHHHHHHHHiiiiiiiiiiJJJAA",
                "anthropic-key", "BBBBBBBBBB", NULL);
    expect_free("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "gcp-api-key", "SyA1b2", NULL);
    expect_free("npm_Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz2Bc4", "npm-token", "Ab3De5", NULL);
    expect_free("pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3ODk",
                "pypi-token", "CJGFiY2Rl", NULL);
    expect_free("sk_live_Ab3De5Gh7Jk9Lm1Np3Qr", "stripe-key", "Ab3De5", NULL);
    expect_free("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7vbqajDw\n-----END RSA PRIVATE KEY-----",
                "private-key", "MIIEow", "[REDACTED:private-key]");
    expect_free("clone https://deploy:S3cretPassw0rd@git.example.org/repo.git", "url-userinfo",
                "S3cretPassw0rd", "https://[REDACTED:url-userinfo]@");
    expect_free("api_key=Zx9Qw3Er7Ty1Ui5Op", "generic-api-key", "Zx9Qw3Er7Ty1Ui5Op",
                "api_key=[REDACTED:generic-api-key]");
    expect_free("export AWS_SECRET_ACCESS_KEY='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
                "generic-api-key", "wJalrXUtnFEMI", NULL);
    /* vendor-token: gitleaks' fixed-prefix shapes; near misses stay */
    expect_free("tok dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef x",
                "vendor-token", "dop_v1_0123", "[REDACTED:vendor-token] x");
    expect_free("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", "vendor-token", "9f8e7d", NULL);
    expect_free("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",
                "vendor-token", "aB3dE5", NULL);
    unchanged("shpat_00000000000000000000000000000000");              /* no entropy */
    unchanged("SK0123456789abcdef0123456789abcde");                  /* 31 hex */
    unchanged("dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefg"); /* glued */
    unchanged("pat.tern.matching and API-short");
    /* glued to a word: a distinctive prefix is still found (xghp_..., xdop_v1_...) */
    expect_free("xdop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                "vendor-token", "0123456789abcdef0123", "x[REDACTED:vendor-token]");
}

static void test_secret_near_misses(void **state)
{
    (void)state;
    unchanged("AKIAQ3EGUIT7ZKXBVN5");            /* 15 after the prefix */
    unchanged("ghp_short");
    unchanged("hf_model_name_with_underscores");
    unchanged("key=value_projection_weight");   /* no digit: a name, not a secret */
    unchanged("token_count: 512");
    unchanged("sk-learn is a library");
    unchanged("TokenizerV2::encode_batch_v2_fast");
    unchanged("passwordless login");
    unchanged("cudaLaunchKernel");
    unchanged("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>");
}

static void test_emails(void **state)
{
    (void)state;
    char *r = expect("mail jane.doe@corp-example.com now", "email", "jane.doe", "@example.invalid");
    assert_int_equal(strncmp(r, "mail email-", 11), 0);
    /* addresses that differ in case keep distinct tokens: two names that differ only there
     * are not merged by redaction */
    char *r2 = expect("JANE.DOE@Corp-Example.com", "email", "JANE", NULL);
    assert_int_not_equal(memcmp(r + 5, r2, strlen(r2)), 0);
    unchanged("torch@2.1");
    unchanged("user@host");
    free(r);
    free(r2);
}

static void test_paths(void **state)
{
    (void)state;
    char *r = expect("/home/bob/secretproj/model.py(88): forward", "home-path", "secretproj",
                     "/model.py(88): forward");
    assert_int_equal(strncmp(r, "<path-", 6), 0);
    assert_not_contains(r, "bob");
    free(r);
    expect_free("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py(1501): _call_impl",
                "site-packages", "conda", "torch/nn/modules/module.py(1501): _call_impl");
    expect_free("/usr/lib/python3.8/threading.py(870): run", "site-packages", "/usr",
                "threading.py(870): run");
    expect_free("/home/bob", "home-path", "bob", "/home/user-");
    expect_free("/tmp/torchinductor_carol/qa/cqaokwf2.py", "torchinductor-path", "carol",
                "/cqaokwf2.py");
    expect_free("/tmp/torchinductor_carol", "torchinductor-path", "carol", "/tmp/torchinductor_user-");
    expect_free("C:\\Users\\John Smith\\proj\\run.py", "home-path", "John", "\\run.py");
    expect_free("C:/Users/winuser9/proj/run.py", "home-path", "winuser9", "/run.py");
    expect_free("/Users/mkowalski/dev/x.py", "home-path", "mkowalski", "/x.py");
    expect_free("file:///home/dave/notes.txt", "home-path", "dave", "file://");
    /* a drive letter that also ends the path before it: a second match starting inside the first
     * one's replacement; both stand, nothing of the user kept */
    r = expect("/tmp/C:\\Users\\bob\\notes", "home-path", "bob", "<path-");
    assert_not_contains(r, "notes");
    free(r);
    expect_free("/tmp/C:\\Users\\bob\\x.py", "home-path", "bob", "\\x.py");
    expect_free("see /x/D:\\Users\\alice", "home-path", "alice", "see <path-");
    expect_free("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py(2919): _run_batch",
                "abs-path", "sgl-workspace", "/scheduler.py(2919): _run_batch");
    /* a Call stack: every frame */
    r = expect("/home/bob/a.py(1): f;/home/bob/b/c.py(2): g", "home-path", "bob", "/a.py(1): f;");
    assert_contains(r, "/c.py(2): g");
    free(r);
    /* learned users are hunted everywhere */
    expect_free("started by bob on Monday", "learned-user", "bob", "started by user-");
    expect_free("carol_notes", "learned-user", "carol", "_notes");
    unchanged("/root");
    unchanged("/tmp");
    unchanged("Torch-Compiled Region: 0/0");
    unchanged("memory bandwidth (GB/s)");
    unchanged("torch/utils/_contextlib.py(117): decorate_context");
    unchanged("see https://example.org/home/x/y"); /* a URL path is not a file path */
}

static void test_url_host(void **state)
{
    (void)state;
    expect_free("see https://www.ubuntu.com/x", "fqdn", "ubuntu", "https://host-");
}

static void test_ips(void **state)
{
    (void)state;
    expect_free("MASTER_ADDR=10.23.45.67 port", "ipv4", "10.23.45.67", "MASTER_ADDR=host-");
    expect_free("peer [2001:db8:85a3::8a2e:370:7334]:29500", "ipv6", "2001:db8", "]:29500");
    expect_free("::ffff:192.168.1.20", "ipv6", "192.168", NULL);
    unchanged("numpy==1.2.3.4");
    unchanged("v1.2.3.4");
    unchanged("1.2.3.4.5");
    unchanged("256.1.1.1");
    unchanged("libcublas 12.8.4.1-1");
    unchanged("c10::complex<float>");
    unchanged("at::native::add_kernel");
    unchanged("::1");
    unchanged("std::__1::basic_string<char>::operator=");
}

static void test_hosts(void **state)
{
    (void)state;
    expect_free("on gpu-node-17.cluster.internal", "fqdn", "gpu-node-17", "on host-");
    expect_free("twshared38393.01.cco6.facebook.com", "fqdn", "facebook", NULL);
    unchanged("modeling_bert.py");
    unchanged("torch.nn.functional");
    unchanged("libfoo.so.1");
    unchanged("docker.io/vllm/vllm-openai");
    /* module names ending in a TLD that is also a Python name */
    unchanged("model.backbone.net");
    unchanged("top.encoder.layers.local");
    unchanged("heads.cls.ai");
    expect_free("on login-2.cluster.local", "fqdn", "login-2", "on host-");
    expect_free("see https://api.example.net/x", "fqdn", "api.example", "host-");
    expect_free("node7.corp.net up", "fqdn", "node7", "host-");
    /* the public-suffix rule (docs/redaction.md, fqdn): hosts ... */
    expect_free("rendezvous at node-3.cluster.local", "fqdn", "node-3", "at host-");
    expect_free("gpu12.example.ai:29500", "fqdn", "gpu12", ":29500");
    expect_free("connect db.internal.net now", "fqdn", "db.internal", "connect host-");
    expect_free("from mail.google.com", "fqdn", "mail.google", "from host-");
    expect_free("redis.default.svc.cluster.local:6379", "fqdn", "redis.default", ":6379");
    expect_free("job on trainer-a.example.dev", "fqdn", "trainer-a", "on host-"); /* a TLD only the PSL knows */
    unchanged("job on trainer.example.dev"); /* identifiers only, no sign of a host */
    expect_free("nn.Module: https://model.backbone.net/x", "fqdn", "model.backbone", "https://host-");
    /* ... and non-hosts: files and Python dotted names ending in a public suffix */
    unchanged("model.py");
    unchanged("libcudart.so");
    unchanged("foo.sh");
    unchanged("my.model.weights.pt");
    unchanged("run.train.step.sh");
    unchanged("see conf/foo.bar.net");                         /* a component inside a path */
    expect_free("/opt/conda/share/foo.bar.net", "abs-path", "conda", "/foo.bar.net");
    unchanged("torch.utils.data");                             /* data, run, app: gTLDs */
    unchanged("trainer.loop.run");
    unchanged("torch.nn.functional.linear(x, w)");
    unchanged("nn.Module: layer1.block.net");                  /* module context: digits no sign */
    unchanged("model.layer2.ai[0]");
    unchanged("torch/nn/modules/module.py(1501): _call_impl; model.head.internal.net");
    unchanged("frobnicate.widget.notatld");                    /* not a public suffix */
}

static void test_sensitive_keys(void **state)
{
    (void)state;
    const char *yes[] = {"HF_TOKEN", "GITHUB_TOKEN", "api_key", "x-api-key", "apikey", "db_password",
                         "PASSWD", "Authorization", "auth", "client_secret", "AWS_SECRET_ACCESS_KEY",
                         "credentials", "private_key", "passphrase", "accessToken", "clientSecret",
                         "dbPassword", "PGPASSWORD", "MYSQL_PWD", "refreshToken", "awsSecretKey",
                         "x_pwd", "OPENAI_KEY", "KAGGLE_KEY", "ENCRYPTION_KEY", "ssh_key",
                         "encryptionKey", "Cookie", "Set-Cookie", "pw", "pass", "passcode",
                         "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig",
                         "session_token", "sessionId", "jwt", "csrf_token", "otp",
                         "signing_key", "master_key", "HMAC_KEY", "openaiKey"};
    const char *no[] = {"TOKENIZERS_PARALLELISM", "author", "monkey", "key", "tokens", "num_tokens",
                        "Input Dims", "External id", "keyboard", "secretary", "max_tokens",
                        "tokenizer", "pwdump", "Input type", "sort_key", "cache_key",
                        "public_key", "dispatch_key", "passenger", "signal", "cookbook",
                        "session", "bypass_count"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!ks_rd_sensitive_key(yes[i], strlen(yes[i])))
            fail_msg("%s should be sensitive", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (ks_rd_sensitive_key(no[i], strlen(no[i])))
            fail_msg("%s should not be sensitive", no[i]);
}

static void test_deny_and_user_rules(void **state)
{
    (void)state;
    char path[] = "/tmp/ks-redact-rules-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *rules = "[{\"name\": \"ticket\", \"pattern\": \"TICKET-[0-9]{4,}\", \"class\": \"secret\"},"
                        " {\"name\": \"cluster\", \"pattern\": \"clu-[a-z]+\", \"class\": \"host\"}]";
    assert_int_equal(write(fd, rules, strlen(rules)), (ssize_t)strlen(rules));
    close(fd);
    char *deny[] = {"ProjectFalcon"};
    ks_redact_opts o;
    ks_redact_opts_init(&o);
    o.rules_file = path;
    o.deny = deny;
    o.ndeny = 1;
    ks_redactor *r2 = rd_new_opts(&o);
    char *x = rd_scan(r2, "fix TICKET-12345 for projectfalcon on clu-east");
    assert_string_not_equal(x, "fix TICKET-12345 for projectfalcon on clu-east");
    assert_contains(x, "[REDACTED:ticket]");
    assert_contains(x, "[REDACTED:deny]");
    assert_contains(x, "on host-");
    char *y = rd_scan(r2, x);
    assert_string_equal(x, y);
    assert_int_equal(ks_redact_count(r2, "ticket"), 1);
    assert_int_equal(ks_redact_count(r2, "cluster"), 1);
    free(x);
    free(y);
    ks_redactor_free(r2);
    /* a bad file is refused with its name */
    FILE *f = fopen(path, "w");
    fprintf(f, "[{\"name\": \"x\", \"pattern\": \"(unclosed\", \"class\": \"secret\"}]");
    fclose(f);
    ks_redactor *r3 = NULL;
    ks_error err;
    assert_int_equal(ks_redactor_new(&o, &r3, &err), KS_ERR);
    assert_non_null(strstr(err.msg, path));
    unlink(path);
}

static void test_entropy(void **state)
{
    (void)state;
    assert_true(ks_rd_entropy("aaaaaaaa", 8) < 0.01);
    double e = ks_rd_entropy("abcdefgh", 8);
    assert_true(e > 2.99 && e < 3.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secrets),     cmocka_unit_test(test_secret_near_misses),
        cmocka_unit_test(test_emails),      cmocka_unit_test(test_paths),
        cmocka_unit_test(test_url_host),    cmocka_unit_test(test_ips),
        cmocka_unit_test(test_hosts),       cmocka_unit_test(test_sensitive_keys),
        cmocka_unit_test(test_deny_and_user_rules), cmocka_unit_test(test_entropy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
