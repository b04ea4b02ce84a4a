from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch


class Draft:
    def prepare(self, batch):
        batch.capture_hidden_mode = CaptureHiddenMode.LAST
        batch.seq_lens_cpu_cache = batch.seq_lens.cpu()

    def run(self, model_worker_batch):
        self.prepare(model_worker_batch)
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)

    def count(self, reqs):
        return sum(len(r.output_ids) for r in reqs)
