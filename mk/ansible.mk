# The Ansible role (ansible/roles/mtag) and example playbook: suite
# "ansible" (tests/ansible/run): ansible-lint (production profile),
# ansible-playbook --syntax-check, the role's apt step against local
# signed repositories, and the role run by ansible-playbook inside the
# booted image, as root and as an unprivileged user with become.
.PHONY: ansible-lint
ansible-lint:
	cd ansible && ansible-lint --offline --profile production site.yml roles/mtag inventory

CHECK_SUITES += ansible
