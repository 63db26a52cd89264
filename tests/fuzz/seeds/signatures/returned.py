def router(self, h):
    logits = F.linear(h, self.weight)
    logits = torch.softmax(logits, dim=-1)
    return logits, '''a "quoted' text'''


class Router:
    def forward(self, h):
        logits = F.linear(h, self.weight)
        logits = torch.softmax(logits, dim=-1)
        top, idx = torch.topk(logits, self.k)
        return logits, top, idx
#--
class Router:
    def forward(self, h, scale: float = 1.0):
        logits = F.linear(h, self.weight) * scale
        top, idx = torch.topk(logits, self.k)
        return logits, top, idx
