-- Argo CD health of a gauntlet.dev BenchmarkRun. Install it as the argocd-cm key
-- resource.customizations.health.gauntlet.dev_BenchmarkRun (docs/gitops.md shows how).
--
-- It reads what the operator writes for GitOps tools: status.observedGeneration, the
-- phase, and the Ready / Stalled conditions (Ready is False from the first pass, so a run
-- is never taken as healthy before it finished).
--   Progressing: the operator has not seen this spec yet, or the run is under way
--   Healthy:     the run succeeded (Ready True); the message is its headline
--   Degraded:    the run failed, or finished with nothing it can stand behind (Stalled
--                True: Conclusive False, no valid row); the message says why
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

local phase = obj.status.phase or "Pending"
local ready = condition("Ready")
local stalled = condition("Stalled")

if phase == "Failed" or (stalled ~= nil and stalled.status == "True") then
  hs.status = "Degraded"
  if stalled ~= nil and stalled.message ~= nil and stalled.message ~= "" then
    hs.message = stalled.message
  else
    hs.message = "The run failed"
  end
  return hs
end

if phase == "Succeeded" and ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  if obj.status.headline ~= nil and obj.status.headline ~= "" then
    hs.message = obj.status.headline
  else
    hs.message = ready.message
  end
  return hs
end

hs.status = "Progressing"
hs.message = "Phase " .. phase .. ", trials " .. (obj.status.progress or "0/0")
return hs
