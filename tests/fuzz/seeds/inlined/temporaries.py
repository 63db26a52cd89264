def get_image_features(self, pixel_values, grid):
        split_sizes = (grid.prod(-1) // 4).tolist()
        image_embeds = torch.split(out.pooler_output, split_sizes)  # per image
        out.pooler_output = image_embeds
        a = g(h)
        b = k(a, w=1)
        c = m(b)[0] + 1
        if c:
            d = self.proj(c, scale=2)
            return d and c
        e = h, 1
        return k(m(), e) if e else [e for _ in h]
