# expect: reported MWB183
# source: sgl-project/sglang 0.5.12 speculative/multi_layer_eagle_worker.py sets
#   `model_worker_batch.return_hidden_states_before_norm = True` before the target forward; hardware forks
#   (e.g. Ascend/NPU ports of this worker) whose graph cannot return pre-norm states clear such flags in a
#   helper and compute the states themselves (the verl NPU patch, , likewise
#   backs up and clears `return_hidden_states` around the target forward).
"""A helper consumes the one-shot pre-norm flag on the old object: it reads it, clears it (writes
False) and takes the manual path; the forward must then see False."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class MultiLayerEagleWorker:
    def __init__(self):
        self.target_worker = TpModelWorker()
        self.graph_supports_prenorm = False
        self.manual_prenorm = 0

    def _adapt_for_backend(self, mwb):
        if mwb.return_hidden_states_before_norm:
            mwb.return_hidden_states_before_norm = False
            self.manual_prenorm += 1

    def forward_target_extend(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.return_hidden_states_before_norm = True
        if not self.graph_supports_prenorm:
            self._adapt_for_backend(model_worker_batch)
        out = self.target_worker.forward_batch_generation(model_worker_batch)
        record("manual prenorm steps", self.manual_prenorm)
        return out


def main():
    return MultiLayerEagleWorker().forward_target_extend(make_batch())
