"""A scheduler mixin for a custom hardware backend."""

from sglang.srt.managers.schedule_batch import ScheduleBatch


class MyBackendSchedulerMixin:
    """Mixed into the scheduler; hands batches to the backend's worker."""

    def run_batch_on_backend(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        self.log_batch(model_worker_batch)
        return self.tp_worker.forward_batch_generation(model_worker_batch)

    def run_split_prefill_on_backend(self, batch: ScheduleBatch, seq_lens_cpu):
        model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=seq_lens_cpu)
        return self.tp_worker.forward_batch_generation(model_worker_batch)

    def log_batch(self, model_worker_batch):
        # unannotated: the tool cannot know this is the old object, only the name changes
        self.logger.debug("forward mode %s", model_worker_batch.forward_mode)
