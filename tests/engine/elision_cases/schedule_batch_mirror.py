import torch


class ModelWorkerBatch:
    pass


class ScheduleBatch:
    def prepare_for_decode(self):
        self.req_pool_indices = torch.tensor([r.req_pool_idx for r in self.reqs])

    def filter_batch(self, keep):
        self.req_pool_indices = self.req_pool_indices[keep]

    def get_model_worker_batch(self):
        return ModelWorkerBatch()

    def size(self):
        return len(self.reqs)
