"""A seq2seq translator in the style of the PyTorch tutorial: an EncoderRNN (Embedding + GRU,
batch_first) and an attention decoder (additive Bahdanau attention with ``torch.bmm``, a GRU fed
the embedding concatenated with the context), teacher forcing chosen by ``random.random()``,
greedy decoding with ``topk`` and ``.squeeze(-1).detach()``, NLLLoss on ``log_softmax``,
a greedy evaluation that stops at EOS."""

import random


def main(torch, epochs=5):
    nn = torch.nn
    F = torch.nn.functional
    SOS, EOS, V, H, MAX_LEN = 0, 1, 9, 8, 6

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.0):
            super(EncoderRNN, self).__init__()
            self.hidden_size = hidden_size
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            output, hidden = self.gru(embedded)
            return output, hidden

    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super().__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.0):
            super(AttnDecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None,
                    teacher_forcing_ratio=0.5):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS)
            decoder_hidden = encoder_hidden
            decoder_outputs, attentions = [], []
            for i in range(MAX_LEN):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)
                if target_tensor is not None and random.random() < teacher_forcing_ratio:
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
                else:
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            attentions = torch.cat(attentions, dim=1)
            return decoder_outputs, decoder_hidden, attentions

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))
            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)
            output, hidden = self.gru(input_gru, hidden)
            output = self.out(output)
            return output, hidden, attn_weights

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(1)
        random.seed(5)
        # the task: reverse a sequence of tokens 2..V-1, then EOS
        src = torch.randint(2, V, (12, MAX_LEN - 1))
        tgt = torch.cat([src.flip(1), torch.full((12, 1), EOS, dtype=torch.long)], dim=1)
        src = torch.cat([src, torch.ones(12, 1, dtype=torch.long)], dim=1)
        encoder, decoder = EncoderRNN(V, H), AttnDecoderRNN(H, V)
        enc_opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
        dec_opt = torch.optim.Adam(decoder.parameters(), lr=0.01)
        criterion = nn.NLLLoss()
        out = []
        for _epoch in range(1, epochs + 1):
            total = 0.0
            for b in range(0, 12, 4):
                input_tensor, target_tensor = src[b:b + 4], tgt[b:b + 4]
                enc_opt.zero_grad()
                dec_opt.zero_grad()
                encoder_outputs, encoder_hidden = encoder(input_tensor)
                decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
                loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)),
                                 target_tensor.view(-1))
                loss.backward()
                enc_opt.step()
                dec_opt.step()
                total += loss.item()
            out.append(total / 3)
        encoder.eval()
        decoder.eval()
        with torch.no_grad():
            encoder_outputs, encoder_hidden = encoder(src[:2])
            decoder_outputs, _, attn = decoder(encoder_outputs, encoder_hidden)
            _, topi = decoder_outputs.topk(1)
            decoded_ids = topi.squeeze()
            words = []
            for idx in decoded_ids[0]:
                if idx.item() == EOS:
                    words.append("<EOS>")
                    break
                words.append(str(idx.item()))
        out.append(float(len(words)))
        out.append(attn.sum().item())
        out += [float(i) for i in decoded_ids.flatten().tolist()]
        return out
    finally:
        torch.set_default_dtype(prev)
