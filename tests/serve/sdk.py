"""boto3 for the Python tests of tests/serve: importing this module skips
the test (exit 77) where boto3 is not installed (Debian python3-boto3);
client() is a client of a local endpoint (`ddb serve`, dynalite) with one
attempt a call, and error_of() runs a call that must fail.  Calls boto3
and botocore only.

    from sdk import ClientError, client, error_of
"""
import sys

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError:
    print("skipped: boto3 is not installed (Debian python3-boto3)")
    sys.exit(77)

__all__ = ["ClientError", "client", "error_of"]


def client(endpoint, service="dynamodb", key="AKIDSERVETEST", secret="serve-secret", validate=True, retries=None):
    """A boto3 client of endpoint in us-east-1.  validate=False turns boto3's
    own parameter validation off, so the server sees what boto3 would refuse;
    retries defaults to one attempt a call (a test sees every error)."""
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=secret,
                        config=Config(retries=retries or {"max_attempts": 1}, parameter_validation=validate))


def error_of(fn, **kw):
    """fn(**kw) must fail: its (code, message, whole error response)."""
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"], e.response
    raise AssertionError("expected an error from %s(%r)" % (fn.__name__, kw))
