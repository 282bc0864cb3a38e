"""Prints test totals from every Surefire (unit) and Failsafe (Felix, Equinox, launcher) report.

Run from the repository root after a Maven build; the last line is 'N passed, N failed, N skipped'.
"""
import glob
import xml.etree.ElementTree as ET

groups = {}
reports = glob.glob("*/target/surefire-reports/TEST-*.xml") + glob.glob(
    "*/target/failsafe-reports/**/TEST-*.xml", recursive=True)
for path in sorted(reports):
    suite = ET.parse(path).getroot()
    parts = path.split("/")
    if parts[2] == "surefire-reports":
        kind = "unit"
    else:
        kind = "integration" + (f" ({parts[3]})" if len(parts) > 4 else "")
    tests, failures, errors, skipped = (int(suite.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
    group = groups.setdefault(f"{parts[0]} {kind}", [0, 0, 0])
    group[0] += tests - failures - errors - skipped
    group[1] += failures + errors
    group[2] += skipped
for key, (passed, failed, skipped) in groups.items():
    print(f"{key:36s} {passed:5d} passed {failed:3d} failed {skipped:3d} skipped")
totals = [sum(group[i] for group in groups.values()) for i in range(3)]
print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
