"""A small ResNet in the torchvision style: BasicBlock with a 1x1 downsample shortcut,
nn.Sequential stages built by a ``_make_layer`` loop, Kaiming init through ``self.modules()``,
AdaptiveAvgPool2d + torch.flatten, CrossEntropyLoss with label smoothing, SGD with Nesterov
momentum under a OneCycleLR schedule, a device picked the usual way, train/eval accuracy."""


def main(torch, steps=6):
    nn = torch.nn
    F = torch.nn.functional

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, in_planes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1,
                                   bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.shortcut = nn.Sequential()
            if stride != 1 or in_planes != planes:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                    nn.BatchNorm2d(planes),
                )

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return F.relu(out)

    class ResNet(nn.Module):
        def __init__(self, block, num_blocks, num_classes=3):
            super().__init__()
            self.in_planes = 4
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3, stride=1, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)
            self.layer1 = self._make_layer(block, 4, num_blocks[0], stride=1)
            self.layer2 = self._make_layer(block, 8, num_blocks[1], stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8 * block.expansion, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

        def _make_layer(self, block, planes, num_blocks, stride):
            strides = [stride] + [1] * (num_blocks - 1)
            layers = []
            for s in strides:
                layers.append(block(self.in_planes, planes, s))
                self.in_planes = planes * block.expansion
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.relu(self.bn1(self.conv1(x)))
            x = self.layer2(self.layer1(x))
            x = self.avgpool(x)
            x = torch.flatten(x, 1)
            return self.fc(x)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(0)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = ResNet(BasicBlock, [1, 2]).to(device)
        images = torch.randn(24, 1, 8, 8)
        labels = ((images[:, 0, :, :4].mean(dim=(1, 2)) > 0).long()
                  + (images.std(dim=(1, 2, 3)) > 1).long())
        train_x, train_y = images[:16].to(device), labels[:16].to(device)
        test_x, test_y = images[16:].to(device), labels[16:].to(device)
        criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True,
                                    weight_decay=5e-4)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=steps)
        out = []
        for _step in range(steps):
            model.train()
            optimizer.zero_grad(set_to_none=True)
            outputs = model(train_x)
            loss = criterion(outputs, train_y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            _, predicted = outputs.max(1)
            correct = predicted.eq(train_y).sum().item()
            out += [loss.item(), correct / train_y.size(0), scheduler.get_last_lr()[0]]
        model.eval()
        with torch.no_grad():
            logits = model(test_x)
            out.append(criterion(logits, test_y).item())
            out.append((logits.argmax(dim=1) == test_y).float().mean().item())
        out.append(float(model.layer2[0].shortcut[1].running_var.sum()))
        out.append(float(sum(p.numel() for p in model.parameters() if p.requires_grad)))
        return out
    finally:
        torch.set_default_dtype(prev)
