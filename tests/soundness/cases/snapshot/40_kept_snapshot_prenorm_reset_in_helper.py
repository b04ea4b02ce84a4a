# expect: reported MWB183
"""Case 19's first-step-only pre-norm flag, written by a module helper handed the kept snapshot:
the helper reads the flag and writes False straight after, which the snapshot takes for a
forward's consumption and ignores; the old object stored False."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


def _first_step_only(m, step):
    m.return_hidden_states_before_norm = m.return_hidden_states_before_norm and step == 0


class Runner:
    def __init__(self):
        self.model_runner = None

    def run(self, batch: ScheduleBatch):
        mwb = batch.get_model_worker_batch()
        mwb.return_hidden_states_before_norm = True
        outputs = []
        for step in range(2):
            _first_step_only(mwb, step)
            forward_batch = ForwardBatch.init_new(mwb, self.model_runner)
            outputs.append(forward_batch.return_hidden_states_before_norm)
        return outputs


def main():
    return Runner().run(make_batch())
