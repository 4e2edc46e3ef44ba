-- Argo CD health of a gauntlet.dev BenchmarkSchedule. Install it as the argocd-cm key
-- resource.customizations.health.gauntlet.dev_BenchmarkSchedule (docs/gitops.md shows how).
--
-- It reads what the operator writes for GitOps tools: status.observedGeneration and the
-- Ready / Stalled conditions.
--   Progressing: the operator has not seen this spec yet
--   Degraded:    the schedule cannot run (Stalled True, such as a cron it cannot read)
--   Suspended:   spec.suspend is true
--   Healthy:     the schedule runs (Ready True); the message names the last good run, and
--                the slower change points while Regressing is True (a regression is a
--                finding of the benchmark, not a fault of the resource: it stays Healthy,
--                as a Regressed BenchmarkRun does)
local hs = {}

local function condition(conditionType)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

if obj.status == nil or obj.status.observedGeneration == nil
    or obj.metadata.generation ~= obj.status.observedGeneration then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to observe generation " .. tostring(obj.metadata.generation)
  return hs
end

local ready = condition("Ready")
local stalled = condition("Stalled")

if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.message or "The schedule cannot run"
  return hs
end

if obj.spec ~= nil and obj.spec.suspend == true then
  hs.status = "Suspended"
  hs.message = "spec.suspend is true: no new runs"
  return hs
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  local good = obj.status.lastGoodRun
  if good ~= nil and good ~= "" then
    hs.message = (ready.message or "") .. "; baseline " .. good
  else
    hs.message = (ready.message or "") .. "; no good run yet"
  end
  local regressing = condition("Regressing")
  if regressing ~= nil and regressing.status == "True" then
    hs.message = hs.message .. "; Regressing: " .. (regressing.message or "")
  end
  return hs
end

hs.status = "Progressing"
hs.message = "Waiting for the operator"
return hs
