// A complete Vigia webhook receiver, Go standard library only.
//
// It follows the receiver rules of Vigia's signature scheme:
//  1. read the raw body, byte for byte (never re-serialise the JSON before checking);
//  2. recompute sha256=HMAC-SHA256(key = the whole signing secret "whsec_..." as UTF-8,
//     message = X-Service-Timestamp + "." + raw body) and compare in constant time;
//  3. refuse a timestamp more than 300 seconds from now (answer 400) and a bad signature (401);
//  4. deduplicate by Idempotency-Key (the delivery id, the same on every retry): a repeat is
//     answered 200 again but not processed twice.
//
// Run: VIGIA_SECRET=whsec_... TLS_CERT=cert.pem TLS_KEY=key.pem PORT=9443 go run .
// Each request is reported as one JSON line on stdout.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

const (
	toleranceSeconds = 300
	maxBodyBytes     = 1 << 20
	dedupTTL         = 7 * 24 * time.Hour // longer than the whole retry schedule
	dedupMaxEntries  = 100000
)

type event struct {
	ID    string `json:"id"`
	Event string `json:"event"`
	Alert struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"alert"`
}

// deduplicator remembers Idempotency-Keys for dedupTTL, at most dedupMaxEntries of them.
type deduplicator struct {
	mu     sync.Mutex
	expiry map[string]time.Time
	order  []string
}

func (d *deduplicator) firstSeen(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	for len(d.order) > 0 && (len(d.order) > dedupMaxEntries || !d.expiry[d.order[0]].After(now)) {
		delete(d.expiry, d.order[0])
		d.order = d.order[1:]
	}
	if exp, ok := d.expiry[key]; ok && exp.After(now) {
		return false
	}
	d.expiry[key] = now.Add(dedupTTL)
	d.order = append(d.order, key)
	return true
}

var (
	secret  = []byte(os.Getenv("VIGIA_SECRET"))
	seen    = &deduplicator{expiry: map[string]time.Time{}}
	outMu   sync.Mutex
	encoder = json.NewEncoder(os.Stdout)
)

func report(fields map[string]string) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = encoder.Encode(fields)
}

func answer(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
}

func handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		answer(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1)) // the raw bytes, exactly as sent
	if err != nil || len(raw) > maxBodyBytes {
		answer(w, http.StatusRequestEntityTooLarge, "body too large or unreadable")
		return
	}

	timestamp := r.Header.Get("X-Service-Timestamp")
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || abs(time.Now().Unix()-ts) > toleranceSeconds {
		report(map[string]string{"result": "stale"})
		answer(w, http.StatusBadRequest, "stale or missing timestamp")
		return
	}

	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(timestamp + "."))
	mac.Write(raw)
	expected := []byte("sha256=" + hex.EncodeToString(mac.Sum(nil)))
	if !hmac.Equal(expected, []byte(r.Header.Get("X-Service-Signature"))) {
		report(map[string]string{"result": "bad_signature"})
		answer(w, http.StatusUnauthorized, "bad signature")
		return
	}

	var ev event
	if err := json.Unmarshal(raw, &ev); err != nil {
		answer(w, http.StatusBadRequest, "body is not JSON")
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		key = ev.ID
	}
	if !seen.firstSeen(key) {
		report(map[string]string{"result": "duplicate", "id": key, "event": ev.Event})
		answer(w, http.StatusOK, "already processed")
		return
	}

	// Process the event here. Order is not guaranteed: use occurredAt and alert.status.
	report(map[string]string{"result": "accepted", "id": key, "event": ev.Event, "alertId": ev.Alert.ID, "status": ev.Alert.Status})
	answer(w, http.StatusOK, "ok")
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "9443"
	}
	host := os.Getenv("HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	addr := host + ":" + port
	server := &http.Server{Addr: addr, Handler: http.HandlerFunc(handle), ReadHeaderTimeout: 10 * time.Second}
	report(map[string]string{"listening": fmt.Sprintf("https://%s", addr)})
	log.Fatal(server.ListenAndServeTLS(os.Getenv("TLS_CERT"), os.Getenv("TLS_KEY")))
}
