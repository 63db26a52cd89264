def forward(self, h):
    logits = F.linear(h, self.weight)  # (seq, experts)
    logits = torch.softmax(logits, dim=-1)
    top, idx = torch.topk(logits, self.k)
    if self.norm:
        top /= top.sum(dim=-1, keepdim=True)
    for out in self.blocks:
        out = out(top)
    a = b = (top, idx)
    def inner():
        top = 0
    if h is None:
        return None
    return (logits, top, idx, self.k, out)
