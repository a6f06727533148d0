package approval

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// classify asks the classifier about a call auto mode lets it judge. Only an allow or an
// ask with the classifier's source is taken; anything else, or no classifier, asks the
// user, saying why.
func (s *Service) classify(ctx context.Context, sessionID string, req tools.PermissionRequest, in permission.Input) permission.Verdict {
	if s.classifier == nil {
		return permission.Verdict{Behavior: permission.Ask, Source: permission.SourceClassifier,
			Reason: "auto mode: no classifier is configured", ReasonCode: permission.ReasonClassifierUnavailable,
			ReasonParams: map[string]string{"reason": "no classifier is configured"}}
	}
	v := s.classifier.Classify(ctx, ClassifierCall{SessionID: sessionID, Tool: in.Tool.Name, Title: req.Entry.Ref().Title,
		Args: req.Args, Touches: in.Targets})
	if (v.Behavior != permission.Allow && v.Behavior != permission.Ask) || v.Source != permission.SourceClassifier {
		return permission.Verdict{Behavior: permission.Ask, Source: permission.SourceClassifier,
			Reason: "auto mode: the classifier's answer was not a clear allow", ReasonCode: permission.ReasonClassifierMalformed}
	}
	v.Classify, v.RuleID, v.Stale = false, "", nil
	return v
}

// showClassified puts the classifier's allow on the tool card: an approval-decided part
// with the classifier as the source and its reason, as a request nobody had to answer.
func (s *Service) showClassified(req tools.PermissionRequest, r Request, v permission.Verdict) {
	obs, _ := req.Observer.(PartObserver)
	if obs == nil {
		return
	}
	r.Namespace, r.Title, r.Args = req.Entry.Namespace, req.Entry.Ref().Title, compactJSON(req.Args)
	r.AskReason, r.AskReasonCode, r.AskReasonParams = v.Reason, v.ReasonCode, v.ReasonParams
	r.Status, r.Source, r.Rules = StatusAllowed, v.Source, []permission.Rule{}
	r.CreatedAt = time.Now().UnixMilli()
	r.DecidedAt = r.CreatedAt
	obs.ApprovalDecided(r.CallID, json.RawMessage(mustJSON(r)))
}
