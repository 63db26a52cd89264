ez;cept
2