"""mwbmigrate: move SGLang code from ModelWorkerBatch to ScheduleBatch."""

__version__ = "0.1.0"
