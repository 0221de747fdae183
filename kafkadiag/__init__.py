"""kafkadiag: Kafka transaction forensics from dump-log output, coordinator state and configs."""

__version__ = "0.1.0"
