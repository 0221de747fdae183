"""Values of sensitive keys never appear in any output format, diff or fact table; SEC001 flags
plaintext ones and leaves placeholders alone."""

from __future__ import annotations

import pytest

from kafkadiag.lint.secrets import is_plaintext_secret, is_sensitive

SECRETS = ["Sup3rS3cretPw", "jaas-pw-777", "keypw-4242", "oauth-client-secret-99", "sr-user:sr-pass-31"]
PRODUCER = f"""bootstrap.servers=kafka:9093
transactional.id=orders-0
enable.idempotence=false
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
    username="svc" password="{SECRETS[1]}";
ssl.keystore.password={SECRETS[0]}
acks=1
ssl.key.password={SECRETS[2]}
transaction.timeout.ms=1200000
"""
RDKAFKA = f"""{{
  "bootstrap.servers": "kafka:9093",
  "transactional.id": "py-0",
  "sasl.password": "{SECRETS[0]}",
  "sasl.oauthbearer.client.secret": "{SECRETS[3]}",
  "message.timeout.ms": 300000
}}
"""
SPRING = f"""spring:
  kafka:
    producer:
      transaction-id-prefix: tx-
      acks: 1
      ssl:
        key-password: {SECRETS[2]}
    properties:
      basic.auth.user.info: {SECRETS[4]}
"""
SERVER = "broker.id=1\ntransaction.max.timeout.ms=900000\nlistener.name.sasl.plain.sasl.jaas.config=x required password=\"" + SECRETS[1] + "\";\n"


@pytest.fixture
def folder(write):
    return write({"producer.properties": PRODUCER, "rdkafka.json": RDKAFKA, "application.yml": SPRING, "server.properties": SERVER})


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github", "markdown"])
def test_no_secret_in_any_format(fmt, folder, lint):
    run = lint([".", "--format", fmt, "--color"], cwd=folder)
    assert run.code == 1
    assert "SEC001" in run.out
    for secret in SECRETS:
        assert secret not in run.out and secret not in run.err, (fmt, secret)


def test_no_secret_in_diff(folder, lint):
    run = lint([".", "--diff"], cwd=folder)
    assert run.out.count("+++ ") >= 3
    for secret in SECRETS:
        assert secret not in run.out and secret not in run.err


def test_no_secret_in_fact_table(folder):
    from kafkadiag.lint.run import LintOptions, run_lint
    import os

    old = os.getcwd()
    os.chdir(folder)
    try:
        result = run_lint(LintOptions(paths=["."]))
    finally:
        os.chdir(old)
    table = result.facts.frame.to_csv()
    for secret in SECRETS:
        assert secret not in table
    keys = set(result.facts.frame["plaintext_secret_keys"])
    assert "sasl.jaas.config,ssl.keystore.password,ssl.key.password" in keys


def test_placeholders_are_not_plaintext():
    assert is_sensitive("ssl.truststore.password") and is_sensitive("spring.kafka.ssl.key-password")
    assert is_sensitive("sasl.oauthbearer.client.secret") and is_sensitive("basic.auth.user.info")
    assert not is_sensitive("ssl.truststore.location") and not is_sensitive("sasl.mechanism")
    assert not is_plaintext_secret("ssl.keystore.password", "${env:KS_PASSWORD}")
    assert not is_plaintext_secret("ssl.keystore.password", "${file:/etc/kafka/secrets.properties:ks}")
    assert not is_plaintext_secret("sasl.jaas.config", 'PlainLoginModule required username="u" password="${PW}";')
    assert not is_plaintext_secret("sasl.jaas.config", "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"/k.keytab\";")
    assert is_plaintext_secret("sasl.jaas.config", 'ScramLoginModule required username="u" password="pw";')
    assert is_plaintext_secret("basic.auth.user.info", "user:pw")
    assert not is_plaintext_secret("ssl.key.password", "")
