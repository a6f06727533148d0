package transfer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"

	"golang.org/x/crypto/scrypt"
)

// sealed is the keys of a backup encrypted with a passphrase: scrypt derives an AES-256
// key from it and a random salt, AES-GCM seals the JSON of the keys (and detects any
// change to it or a wrong passphrase).
type sealed struct {
	KDF   string `json:"kdf"` // "scrypt"
	N     int    `json:"n"`
	R     int    `json:"r"`
	P     int    `json:"p"`
	Salt  []byte `json:"salt"`
	Nonce []byte `json:"nonce"`
	Data  []byte `json:"data"`
}

// scryptN is the scrypt cost: about 100 ms and 32 MiB on a laptop, for each guess too.
var scryptN = 1 << 15

var errWrongPassphrase = errors.New("wrong passphrase or damaged keys")

func seal(plain []byte, passphrase string) (sealed, error) {
	s := sealed{KDF: "scrypt", N: scryptN, R: 8, P: 1, Salt: make([]byte, 16)}
	if _, err := rand.Read(s.Salt); err != nil {
		return s, err
	}
	gcm, err := s.aead(passphrase)
	if err != nil {
		return s, err
	}
	s.Nonce = make([]byte, gcm.NonceSize())
	if _, err := rand.Read(s.Nonce); err != nil {
		return s, err
	}
	s.Data = gcm.Seal(nil, s.Nonce, plain, []byte(s.KDF))
	return s, nil
}

func (s sealed) open(passphrase string) ([]byte, error) {
	if s.KDF != "scrypt" || s.N < 2 || s.N > 1<<20 || s.R < 1 || s.R > 32 || s.P < 1 || s.P > 16 {
		return nil, errors.New("unknown key derivation")
	}
	gcm, err := s.aead(passphrase)
	if err != nil {
		return nil, err
	}
	if len(s.Nonce) != gcm.NonceSize() {
		return nil, errWrongPassphrase
	}
	out, err := gcm.Open(nil, s.Nonce, s.Data, []byte(s.KDF))
	if err != nil {
		return nil, errWrongPassphrase
	}
	return out, nil
}

func (s sealed) aead(passphrase string) (cipher.AEAD, error) {
	key, err := scrypt.Key([]byte(passphrase), s.Salt, s.N, s.R, s.P, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealKeys encrypts name → value.
func sealKeys(keys map[string]string, passphrase string) ([]byte, error) {
	plain, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	s, err := seal(plain, passphrase)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

func openKeys(data []byte, passphrase string) (map[string]string, error) {
	var s sealed
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	plain, err := s.open(passphrase)
	if err != nil {
		return nil, err
	}
	var keys map[string]string
	if err := json.Unmarshal(plain, &keys); err != nil {
		return nil, errWrongPassphrase
	}
	return keys, nil
}
