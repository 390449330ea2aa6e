"""A text classifier in the style of the torchtext tutorial: ``nn.EmbeddingBag`` (mode="mean")
fed a flat token tensor with ``offsets`` built by ``torch.tensor(...).cumsum(dim=0)``, a
``collate_batch`` for a DataLoader over a plain list, uniform init, SGD with StepLR(gamma=0.1),
``clip_grad_norm_(…, 0.1)``, accuracy counted with ``(predicted_label.argmax(1) == label).sum()``,
``random_split`` into train/valid with a seeded generator."""


def main(torch, epochs=4):
    nn = torch.nn
    from_data = torch.utils.data
    VOCAB, EMBED, CLASSES = 20, 6, 3

    class TextClassificationModel(nn.Module):
        def __init__(self, vocab_size, embed_dim, num_class):
            super(TextClassificationModel, self).__init__()
            self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
            self.fc = nn.Linear(embed_dim, num_class)
            self.init_weights()

        def init_weights(self):
            initrange = 0.5
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.fc.weight.data.uniform_(-initrange, initrange)
            self.fc.bias.data.zero_()

        def forward(self, text, offsets):
            embedded = self.embedding(text, offsets)
            return self.fc(embedded)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(4)
        # a corpus of (label, token list): the label is told by which third of the vocabulary
        # most tokens come from
        corpus = []
        for _ in range(40):
            label = int(torch.randint(0, CLASSES, (1,)))
            n = int(torch.randint(2, 7, ()).item())
            per_class = VOCAB // CLASSES
            tokens = (torch.randint(0, per_class, (n,)) + label * per_class).tolist()
            corpus.append((label, tokens))

        def collate_batch(batch):
            label_list, text_list, offsets = [], [], [0]
            for _label, _text in batch:
                label_list.append(_label)
                processed_text = torch.tensor(_text, dtype=torch.int64)
                text_list.append(processed_text)
                offsets.append(processed_text.size(0))
            label_list = torch.tensor(label_list, dtype=torch.int64)
            offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
            text_list = torch.cat(text_list)
            return label_list, text_list, offsets

        train_ds, valid_ds = from_data.random_split(corpus, [32, 8],
                                                    generator=torch.Generator().manual_seed(42))
        train_dl = from_data.DataLoader(train_ds, batch_size=8, shuffle=True,
                                        collate_fn=collate_batch)
        valid_dl = from_data.DataLoader(valid_ds, batch_size=8, shuffle=False,
                                        collate_fn=collate_batch)
        model = TextClassificationModel(VOCAB, EMBED, CLASSES)
        criterion = torch.nn.CrossEntropyLoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=2.0)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.5)
        out = []

        def evaluate(dataloader):
            model.eval()
            total_acc, total_count = 0, 0
            with torch.no_grad():
                for label, text, offsets in dataloader:
                    predicted_label = model(text, offsets)
                    total_acc += (predicted_label.argmax(1) == label).sum().item()
                    total_count += label.size(0)
            return total_acc / total_count

        for _epoch in range(1, epochs + 1):
            model.train()
            total_acc, total_count = 0, 0
            for _idx, (label, text, offsets) in enumerate(train_dl):
                optimizer.zero_grad()
                predicted_label = model(text, offsets)
                loss = criterion(predicted_label, label)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
                optimizer.step()
                total_acc += (predicted_label.argmax(1) == label).sum().item()
                total_count += label.size(0)
                out.append(loss.item())
            out.append(total_acc / total_count)
            out.append(evaluate(valid_dl))
            scheduler.step()
        bag = nn.EmbeddingBag(VOCAB, EMBED, mode="sum")
        bag.weight = model.embedding.weight
        per_sample_weights = torch.linspace(0.5, 1.5, 5)
        with torch.no_grad():
            s = bag(torch.tensor([1, 2, 3, 4, 5]), torch.tensor([0, 2]),
                    per_sample_weights=per_sample_weights)
            m = nn.EmbeddingBag.from_pretrained(model.embedding.weight, mode="max")(
                torch.tensor([[1, 2], [3, 4]]))
        return out + s.flatten().tolist() + m.flatten().tolist()
    finally:
        torch.set_default_dtype(prev)
