"""The checks of the Python tests that drive a DynamoDB endpoint as a suite
written against DynamoDB does (tests/serve/test_legacy.py,
tests/serve/test_answers.py, tests/trial/test_serve_dynamodb.py): a
condition, and a boto3 call that must fail with an exception whose message
starts with DynamoDB's words.  The failures
are collected in `failures`; each is printed as it happens.  check() needs
nothing but Python; fails() needs botocore.
"""
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def fails(what, code, starts, fn, **kw):
    """fn(**kw) must fail with exception `code` and a message starting with `starts`;
    returns the error response (None when it did not fail)."""
    from botocore.exceptions import ClientError
    try:
        fn(**kw)
    except ClientError as e:
        got = (e.response["Error"]["Code"], e.response["Error"]["Message"])
        check(got[0] == code and got[1].startswith(starts), "%s: got %r, want (%r, %r...)" % (what, got, code, starts))
        return e.response
    check(False, "%s: no error (want %s)" % (what, code))
    return None


def wait_active(status, table, tries=400):
    """Poll status(table) (the TableStatus DescribeTable answers) until ACTIVE:
    a table is created asynchronously by some servers (dynalite)."""
    for _ in range(tries):
        if status(table) == "ACTIVE":
            return
        time.sleep(0.05)
    raise AssertionError("table %s did not become ACTIVE" % table)
