from sglang.srt.managers.tp_worker import TpModelWorker

_original = TpModelWorker.forward_batch_generation


def _traced(self, model_worker_batch, *args, **kwargs):
    return _original(self, model_worker_batch, *args, **kwargs)


def install():
    TpModelWorker.forward_batch_generation = _traced


def install_by_setattr():
    setattr(TpModelWorker, "forward_batch_generation", _traced)


def unrelated(x):
    return x * 2
