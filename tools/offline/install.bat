@echo off
rem xlmodel offline install (Windows): runs install.ps1 beside this file; see README.md.
rem Arguments go to install.ps1, e.g.  install.bat -TrustVbaAccess
powershell -NoProfile -ExecutionPolicy Bypass -File "%~dp0install.ps1" %*
set rc=%errorlevel%
pause
exit /b %rc%
