# xlmodel 离线安装（Windows）— the offline install on Windows: finds Python (the bundle's version; installs
# it for this user from the bundle's python-X.Y.Z-amd64.exe when there is none), then runs install.py, the
# same steps as on Linux (README.md): check the bundle, make the environment, install from wheels\ without
# network, install the xlwings add-in, run `xlmodel selftest --engine excel`.
#
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-Venv FOLDER] [-Force] [-NoAddin] [-TrustVbaAccess]
#
# (install.bat runs this for a double-click.) Saved as UTF-8 with a BOM: Windows PowerShell 5.1 reads it so.
param([string]$Venv = "", [switch]$Force, [switch]$NoAddin, [switch]$TrustVbaAccess)
$ErrorActionPreference = "Stop"
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$env:PYTHONUTF8 = "1"
$want = (Get-Content -Raw -Encoding UTF8 (Join-Path $here "manifest.json") | ConvertFrom-Json).python

function Find-Python {
    try {
        $p = & py "-$want" -c "import sys; print(sys.executable)" 2>$null
        if ($LASTEXITCODE -eq 0 -and $p) { return "$p".Trim() }
    } catch {}
    foreach ($c in @("python", "python3")) {
        try {
            $v = & $c -c "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)" 2>$null
            if ($LASTEXITCODE -eq 0 -and $v -and $v[0] -eq $want) { return "$($v[1])".Trim() }
        } catch {}
    }
    $user = Join-Path $env:LOCALAPPDATA ("Programs\Python\Python" + $want.Replace(".", "") + "\python.exe")
    if (Test-Path $user) { return $user }
    return $null
}

$py = Find-Python
if (-not $py) {
    $installer = Get-ChildItem -Path $here -Filter "python-$want*-amd64.exe" | Select-Object -First 1
    if ($installer) {
        Write-Host "[xlmodel] 为当前用户安装 Python $want（不联网）installing Python $want for this user from $($installer.Name)"
        Start-Process -Wait -FilePath $installer.FullName -ArgumentList @("/quiet", "InstallAllUsers=0", "PrependPath=0",
            "Include_launcher=0", "Include_test=0", "Shortcuts=0")
        $py = Find-Python
    }
}
if (-not $py) {
    Write-Host "[xlmodel] 未找到 Python $want：请 IT 安装 Python $want（64 位），或把 python-$want.x-amd64.exe 放在本文件夹后重试 — Python $want not found: ask IT to install it, or put its installer beside this script"
    exit 2
}
$argv = @()
if ($Venv) { $argv += @("--venv", $Venv) }
if ($Force) { $argv += "--force" }
if ($NoAddin) { $argv += "--no-addin" }
if ($TrustVbaAccess) { $argv += "--trust-vba-access" }
& $py (Join-Path $here "install.py") @argv
exit $LASTEXITCODE
