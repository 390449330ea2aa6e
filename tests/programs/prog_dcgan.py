"""A DCGAN in the style of the PyTorch tutorial: a ConvTranspose2d generator and a strided
Conv2d discriminator with BatchNorm2d and LeakyReLU, ``weights_init`` applied through
``Module.apply`` with a ``classname.find`` test, BCELoss against ``torch.full`` labels, two Adam
optimizers with betas=(0.5, 0.999), ``.detach()`` for the discriminator step, a fixed noise
batch rendered at the end under ``torch.no_grad()``. In float32, as the tutorial: the curves agree
to float32 rounding."""

# float32 sums in another order differ in the last bits
TOLERANCE = {"rtol": 2e-5, "atol": 1e-6}


def main(torch, iters=6):
    nn = torch.nn
    nz, ngf, ndf, nc = 4, 4, 4, 1

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),   # 1 -> 4
                nn.BatchNorm2d(ngf * 2),
                nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),  # 4 -> 8
                nn.BatchNorm2d(ngf),
                nn.ReLU(True),
                nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),       # 8 -> 16
                nn.Tanh(),
            )

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()
            self.main = nn.Sequential(
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),                # 16 -> 8
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),           # 8 -> 4
                nn.BatchNorm2d(ndf * 2),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),             # 4 -> 1
                nn.Sigmoid(),
            )

        def forward(self, input):
            return self.main(input).view(-1, 1).squeeze(1)

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    torch.manual_seed(999)
    device = torch.device("cpu")
    netG = Generator().to(device)
    netG.apply(weights_init)
    netD = Discriminator().to(device)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(4, nz, 1, 1, device=device)
    real_label, fake_label = 1.0, 0.0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=0.0002 * 10, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=0.0002 * 10, betas=(0.5, 0.999))
    # "real" images: smooth blobs
    grid = torch.linspace(-1, 1, 16)
    yy, xx = torch.meshgrid(grid, grid, indexing="ij")
    centres = torch.rand(iters, 8, 2) - 0.5
    out = []
    for i in range(iters):
        c = centres[i]
        real = torch.exp(-((xx - c[:, 0, None, None]) ** 2 + (yy - c[:, 1, None, None]) ** 2) * 4)
        real_cpu = (real * 2 - 1).unsqueeze(1).to(device)
        b_size = real_cpu.size(0)
        # (1) update D: maximise log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = torch.randn(b_size, nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        # (2) update G: maximise log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        out += [errD.item(), errG.item(), D_x, D_G_z1, D_G_z2]
    with torch.no_grad():
        sample = netG(fixed_noise).detach().cpu()
    out += [sample.mean().item(), sample.abs().max().item()]
    return out
